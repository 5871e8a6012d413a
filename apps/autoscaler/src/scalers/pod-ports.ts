import http from "node:http";
import type { Clock, TimerHandle } from "@thaw/clock";
import { Path } from "@thaw/protocol";
import { portProblem } from "./local/pod-problem.js";
import type { PodStatusTracker } from "./pod-status-tracker.js";

/** How long a pod's containers run, never ready, before its queue-proxy is asked what listens (as `thaw up`). */
export const PORT_CHECK_AFTER_MS = 2000;
/** How often such pods are asked again while they stay not ready. */
const PORT_CHECK_EVERY_MS = 2000;
/** A queue-proxy's answer is a few dozen bytes: more is not read. */
const MAX_ANSWER_BYTES = 4096;
const ASK_TIMEOUT_MS = 1000;

/** What a queue-proxy answers on `Path.listening`. */
export interface ListeningAnswer {
  userPort: number;
  listening: number[];
}

const isPort = (x: unknown): x is number =>
  Number.isInteger(x) && (x as number) >= 1 && (x as number) <= 65535;

/** The answer checked, or undefined (an older queue-proxy's 404, a malformed body, a /proc it cannot read). */
export function parseListening(text: string): ListeningAnswer | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  const o = v as { userPort?: unknown; listening?: unknown } | null;
  if (!o || !isPort(o.userPort) || !Array.isArray(o.listening) || !o.listening.every(isPort))
    return undefined;
  return { userPort: o.userPort, listening: o.listening.slice(0, 64) };
}

/** GET `Path.listening` of a pod's queue-proxy metrics port, bounded in time and size. */
export function askListening(ip: string, port: number): Promise<ListeningAnswer | undefined> {
  const host = ip.includes(":") ? `[${ip}]` : ip;
  return new Promise((resolve) => {
    const req = http.get(
      `http://${host}:${port}${Path.listening}`,
      { timeout: ASK_TIMEOUT_MS, agent: false },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          resolve(undefined);
          return;
        }
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
          if (body.length > MAX_ANSWER_BYTES) req.destroy();
        });
        res.on("end", () => resolve(parseListening(body)));
        res.on("error", () => resolve(undefined));
      },
    );
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(undefined));
  });
}

/**
 * Every 2 s, asks the queue-proxy of each pod of `tracker` that has run 2 s without ever being ready which
 * ports its app listens on, and tells the tracker: "app listens on 8099, not on $PORT=8080" is failing at
 * once, where the kubelet's probe events only say 503 until the activation times out. Returns the stop.
 */
export function followPodPorts(
  tracker: PodStatusTracker,
  metricsPort: number,
  clock: Pick<Clock, "now" | "setTimeout" | "clearTimeout">,
  ask: typeof askListening = askListening,
): () => void {
  let timer: TimerHandle | undefined;
  let stopped = false;
  const round = async () => {
    for (const pod of tracker.waiting(clock.now(), PORT_CHECK_AFTER_MS)) {
      const seen = await ask(pod.ip, metricsPort);
      if (stopped) return;
      if (seen) tracker.portProblem(pod.name, portProblem("PORT", seen.userPort, seen.listening));
    }
  };
  const next = () => {
    timer = clock.setTimeout(() => {
      void round().finally(() => {
        if (!stopped) next();
      });
    }, PORT_CHECK_EVERY_MS);
  };
  next();
  return () => {
    stopped = true;
    if (timer !== undefined) clock.clearTimeout(timer);
  };
}
