import { request } from "node:http";

/** One answer, read in full. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  ms: number;
}

/**
 * One HTTP/1.1 request on its own connection (so a Host header can be set, which fetch forbids), bounded
 * by `timeoutMs`: a request that hangs fails the test instead of stalling it.
 */
export function get(
  url: string,
  opts: {
    host?: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    timeoutMs?: number;
  } = {},
): Promise<Answer> {
  const u = new URL(url);
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: opts.method ?? "GET",
        agent: false,
        headers: { ...(opts.host ? { host: opts.host } : {}), ...opts.headers },
        timeout: opts.timeoutMs ?? 30_000,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          body += c;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ms: Date.now() - t0 }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () =>
      req.destroy(new Error(`no answer from ${url} within ${opts.timeoutMs ?? 30_000} ms`)),
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

/** The gateway's counters (`GET /_thaw/edge`). */
export interface EdgeCounters {
  /** Requests the gateway was handed (every route but /_thaw/edge). */
  received: number;
  hook: { activations: number; warmAllows: number; coldAllows: number; denies: number };
  activator: { revisions: { name: string; wakes: number; coldStarts: number }[] };
}

/** Reads the gateway's counters with the activator token. */
export async function counters(edge: string, token: string): Promise<EdgeCounters> {
  const r = await get(`${edge}/_thaw/edge`, { headers: { authorization: `Bearer ${token}` } });
  if (r.status !== 200) throw new Error(`GET /_thaw/edge answered ${r.status}: ${r.body}`);
  return JSON.parse(r.body) as EdgeCounters;
}

/** The activator's wakes for one revision. */
export function wakesOf(c: EdgeCounters, name: string): number {
  return c.activator.revisions.find((r) => r.name === name)?.wakes ?? -1;
}
