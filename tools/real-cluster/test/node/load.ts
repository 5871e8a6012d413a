import { Agent, request } from "node:http";

/** What a run of requests came back with: counts by status, and every answer that breaks the rules. */
export interface LoadResult {
  /** Status → count; 0 counts requests that got no answer at all (reset, refused, timed out). */
  byStatus: Record<number, number>;
  /** Answers other than 200 or 503 + Retry-After, with what came back. */
  lost: string[];
  /** The first few 503s with Retry-After, with their bodies: who refused, and why. */
  refused: string[];
  /** The pods that answered (the hello app names its pod in the body). */
  pods: Set<string>;
  /** Each pod's last answer, by the test's clock (ms since the epoch). */
  lastByPod: Map<string, number>;
  /** Every answer's time, ms, in the order they came. */
  ms: number[];
}

/** A fresh result. */
export const emptyLoad = (): LoadResult => ({
  byStatus: {},
  lost: [],
  refused: [],
  pods: new Set(),
  lastByPod: new Map(),
  ms: [],
});

/** One GET to `url` with `Host: host`, recorded into `r`; never throws (an error is status 0). */
export function oneRequest(
  agent: Agent,
  url: string,
  host: string,
  r: LoadResult,
  timeoutMs = 90_000,
): Promise<void> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const done = (status: number, detail: string, body = "") => {
      r.byStatus[status] = (r.byStatus[status] ?? 0) + 1;
      r.ms.push(Date.now() - t0);
      const pod = body.match(/^hello from (\S+)/)?.[1];
      if (pod) {
        r.pods.add(pod);
        r.lastByPod.set(pod, Date.now());
      }
      if (detail) r.lost.push(detail);
      resolve();
    };
    const req = request(url, { agent, headers: { host }, timeout: timeoutMs }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        if (body.length < 2048) body += c;
      });
      res.on("end", () => {
        const s = res.statusCode ?? 0;
        const retry = s === 503 && res.headers["retry-after"] !== undefined;
        if (retry && r.refused.length < 5) r.refused.push(`503 ${body.slice(0, 200)}`);
        done(s, s === 200 || retry ? "" : `${s} ${body.slice(0, 200)}`, body);
      });
      res.on("error", (e) => done(0, `response error: ${e.message}`));
    });
    req.on("timeout", () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on("error", (e) => done(0, `request error: ${e.message}`));
    req.end();
  });
}

/** `n` requests at once (one connection each), recorded into `r` as they are answered. */
export async function burst(url: string, host: string, n: number, r = emptyLoad()): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: false, maxSockets: n });
  await Promise.all(Array.from({ length: n }, (_, i) => oneRequest(agent, `${url}/burst/${i}`, host, r)));
  agent.destroy();
  return r;
}

/**
 * `workers` clients sending one request after another (kept-alive connections) until `stop()` is called;
 * `done` resolves with everything they got once the last answer is in.
 */
export function steadyLoad(
  url: string,
  host: string,
  workers: number,
): { stop(): void; done: Promise<LoadResult> } {
  const agent = new Agent({ keepAlive: true, maxSockets: workers });
  const r = emptyLoad();
  let stopped = false;
  const worker = async (w: number) => {
    for (let i = 0; !stopped; i++) await oneRequest(agent, `${url}/steady/${w}/${i}`, host, r);
  };
  const done = Promise.all(Array.from({ length: workers }, (_, w) => worker(w))).then(() => {
    agent.destroy();
    return r;
  });
  return {
    stop: () => {
      stopped = true;
    },
    done,
  };
}

/** The total of a result's answers. */
export const total = (r: LoadResult): number => Object.values(r.byStatus).reduce((a, b) => a + b, 0);

/** Nearest-rank percentile `p` of a result's answer times, ms (NaN for none). */
export function percentile(r: LoadResult, p: number): number {
  const v = [...r.ms].sort((a, b) => a - b);
  return v.length === 0
    ? Number.NaN
    : (v[Math.min(v.length - 1, Math.ceil((p / 100) * v.length) - 1)] as number);
}
