import http from "node:http";

/** One revision as `/_thaw/api/revisions` shows it (the fields a burst is judged by). */
export interface RevisionReading {
  name: string;
  desiredScale: number;
  readyPods: number;
  panic: boolean;
  panicConcurrency: number;
}

/** What a burst came to: each request's status and latency, and the revision's scale over time. */
export interface BurstResult {
  statuses: number[];
  latenciesMs: number[];
  /** `[ms since the burst, desiredScale, readyPods]`, one row per change seen. */
  timeline: [number, number, number][];
  /** Largest desiredScale seen, and when (ms since the burst). */
  maxDesired: number;
  maxDesiredAtMs: number;
}

/** The `p`-th percentile (nearest rank) of `xs`. */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] as number;
}

function get(port: number, host: string, path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path, headers: { host }, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", () => resolve(0));
    });
    req.on("error", () => resolve(0));
  });
}

/**
 * Sends `n` concurrent GETs for `host` to `port` and, until they are all answered, reads `revisionsUrl` every
 * 100 ms for the revision `name` (bounded by the requests' own end: each one finishes or fails).
 */
export async function coldBurst(o: {
  port: number;
  host: string;
  n: number;
  revisionsUrl: string;
  name: string;
  /** Request i goes to `${path}${i}` (default `/burst/`). */
  path?: string;
}): Promise<BurstResult> {
  const t0 = performance.now();
  const timeline: [number, number, number][] = [];
  let done = false;
  let maxDesired = 0;
  let maxDesiredAtMs = 0;
  const watch = (async () => {
    for (let i = 0; i < 3000 && !done; i++) {
      const all = (await (await fetch(o.revisionsUrl)).json()) as RevisionReading[];
      const r = all.find((x) => x.name === o.name);
      const at = Math.round(performance.now() - t0);
      if (r) {
        const last = timeline.at(-1);
        if (!last || last[1] !== r.desiredScale || last[2] !== r.readyPods)
          timeline.push([at, r.desiredScale, r.readyPods]);
        if (r.desiredScale > maxDesired) {
          maxDesired = r.desiredScale;
          maxDesiredAtMs = at;
        }
      }
      await new Promise((res) => setTimeout(res, 100));
    }
  })();
  const answers = await Promise.all(
    Array.from({ length: o.n }, async (_, i) => {
      const s = performance.now();
      const status = await get(o.port, o.host, `${o.path ?? "/burst/"}${i}`);
      return { status, ms: performance.now() - s };
    }),
  );
  done = true;
  await watch;
  return {
    statuses: answers.map((a) => a.status),
    latenciesMs: answers.map((a) => Math.round(a.ms)),
    timeline,
    maxDesired,
    maxDesiredAtMs,
  };
}

/** The burst's figures as one `THAW-FIGURES` line for the closing note. */
export function figuresLine(label: string, r: BurstResult): string {
  const tl = r.timeline.map(([t, d, p]) => `${t}ms:${d}/${p}`).join(" ");
  return `THAW-FIGURES ${label}: p50=${percentile(r.latenciesMs, 50)}ms p99=${percentile(r.latenciesMs, 99)}ms maxDesired=${r.maxDesired}@${r.maxDesiredAtMs}ms desired/ready ${tl}`;
}
