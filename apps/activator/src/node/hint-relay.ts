import { sendWakeHint } from "@thaw/protocol";
import type { ActivatorDeps } from "../ports.js";

/** The http(s) base of an autoscaler stat URL (`ws://ip:port` is the same server's HTTP face). */
export function httpBaseOf(url: string): string {
  return url.replace(/^ws(s?):\/\//, "http$1://");
}

/**
 * Wake hints (`/v1/activate` ttlSeconds) passed on to the autoscaler replicas the stats go to: this activator
 * cannot scale, the autoscaler holds the hint (its `POST /v1/activate`, hint-only). Every replica gets it, as
 * every one gets the stats, so a follower that takes the lead already knows. Resolves to the latest
 * `warmUntilMs` any replica gave; rejects with the first failure when none took it.
 */
export function autoscalerHints(
  targets: () => readonly string[],
  token: string | undefined,
  fetchFn: (req: Request) => Promise<Response>,
): NonNullable<ActivatorDeps["warm"]> {
  return async (key, ttlMs) => {
    const urls = targets();
    if (urls.length === 0) throw new Error("no autoscaler to pass the hint to (none listed yet)");
    const answers = await Promise.allSettled(
      urls.map((u) =>
        sendWakeHint(
          { baseUrl: httpBaseOf(u), fetch: fetchFn, ...(token ? { token } : {}) },
          key,
          Math.round(ttlMs / 1000),
        ),
      ),
    );
    const took = answers.flatMap((a) => (a.status === "fulfilled" ? [a.value] : []));
    if (took.length > 0) return Math.max(...took);
    throw (answers[0] as PromiseRejectedResult).reason;
  };
}
