import type { ActivateRequest, WarmHintResponse } from "./activation-api.js";
import { readBoundedText } from "./bounded-body.js";

/** Where {@link sendWakeHint} sends: a Thaw part that takes `POST /v1/activate` hints. */
export interface WakeHintTarget {
  /** e.g. `http://10.0.0.5:8080` (the autoscaler) or a Thaw origin's gateway. */
  baseUrl: string;
  /** Bearer token of that part's `/v1/*`. */
  token?: string;
  fetch: (req: Request) => Promise<Response>;
}

/** Longest answer read from the target: a WarmHintResponse or an ApiError is far smaller. */
const ANSWER_LIMIT = 16 * 1024;

/**
 * Passes a wake hint on (a hint-only `POST /v1/activate`: namespace, name, ttlSeconds) and resolves to the
 * `warmUntilMs` of its 202; rejects with the target's status and message otherwise. For activators that
 * cannot scale themselves: the cluster's sends hints to its autoscaler, the edge's to its Thaw origin.
 */
export async function sendWakeHint(
  target: WakeHintTarget,
  rev: { namespace: string; name: string },
  ttlSeconds: number,
): Promise<number> {
  const url = new URL("/v1/activate", target.baseUrl).toString();
  const body: ActivateRequest = { namespace: rev.namespace, name: rev.name, ttlSeconds };
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  const res = await target.fetch(new Request(url, { method: "POST", headers, body: JSON.stringify(body) }));
  const text = await readBoundedText(res, ANSWER_LIMIT);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {}
  const until = (json as Partial<WarmHintResponse> | undefined)?.warmUntilMs;
  if (res.status === 202 && typeof until === "number") return until;
  const message =
    (json as { error?: { message?: string } } | undefined)?.error?.message ?? text.slice(0, 200);
  throw new Error(`POST ${url} answered ${res.status}: ${message}`);
}
