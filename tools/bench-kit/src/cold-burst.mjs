// A burst at zero, measured: each request's status and latency, and the revision's desired and ready pods
// over time as a status API shows them (thaw up's /_thaw/api/revisions, the autoscaler's /v1/revisions).
import http from "node:http";

/**
 * The `p`-th percentile (nearest rank) of `xs`.
 * @param {readonly number[]} xs
 * @param {number} p
 * @returns {number}
 */
export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return /** @type {number} */ (s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]);
}

/**
 * @param {number} port
 * @param {string} host
 * @param {string} path
 * @returns {Promise<number>}
 */
function get(port, host, path) {
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
 * @param {{ port: number, host: string, n: number, revisionsUrl: string, name: string, token?: string, path?: string }} o
 *   (request i goes to `${path}${i}`, default `/burst/`)
 * @returns {Promise<import("./cold-burst.js").ColdBurstResult>}
 */
export async function coldBurst(o) {
  const t0 = performance.now();
  /** @type {[number, number, number][]} */
  const timeline = [];
  let done = false;
  let maxDesired = 0;
  let maxDesiredAtMs = 0;
  /** @type {Record<string, string>} */
  const headers = o.token ? { authorization: `Bearer ${o.token}` } : {};
  const watch = (async () => {
    for (let i = 0; i < 3000 && !done; i++) {
      const all = /** @type {{ name: string, desiredScale: number, readyPods: number }[]} */ (
        await (await fetch(o.revisionsUrl, { headers })).json()
      );
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

/**
 * When the scale first reached `atLeast` pods (ms since the burst), measured from its first step up, which the
 * autoscaler takes at the burst's first stat (the activation's cold-start poke runs the decider at once), and
 * how many pods were ready then; undefined fields when never seen.
 * @param {import("./cold-burst.js").ColdBurstResult} r
 * @param {number} atLeast
 * @returns {import("./cold-burst.js").ScaleReached}
 */
export function scaleReached(r, atLeast) {
  const firstMs = r.timeline.find(([, d]) => d >= 1)?.[0];
  const reached = r.timeline.find(([, d]) => d >= atLeast);
  const reachedMs = reached?.[0];
  const afterFirstMs = firstMs !== undefined && reachedMs !== undefined ? reachedMs - firstMs : undefined;
  // The desired counts seen from the first step up to the reached one: [1, 8] is one decider tick, however
  // late a loaded machine ran it; [1, 4, 8] is two.
  const steps =
    firstMs === undefined || reachedMs === undefined
      ? undefined
      : r.timeline.filter(([t], i, all) => t >= firstMs && t <= reachedMs && all[i - 1]?.[1] !== all[i]?.[1]);
  const stepsAfterFirst = steps === undefined ? undefined : steps.length - 1;
  return { firstMs, reachedMs, afterFirstMs, stepsAfterFirst, readyThen: reached?.[2] };
}

/**
 * Whether the scale reached its count within one decider tick of its first step up. Either in one step,
 * however late a loaded machine ran that tick; or within `tickMs` of the first step, however many steps it
 * took: while no pod is ready, each stat that brings held requests runs the decider at once, so a burst whose
 * held count reaches the autoscaler in two reports steps twice inside the same tick ([1, 4, 8]).
 * @param {import("./cold-burst.js").ScaleReached} reached
 * @param {number} [tickMs] the decider's tick (the autoscaler's 2 s)
 */
export function withinOneTick(reached, tickMs = 2000) {
  if (reached.stepsAfterFirst === undefined) return false;
  return reached.stepsAfterFirst <= 1 || (reached.afterFirstMs ?? Number.POSITIVE_INFINITY) <= tickMs;
}

/**
 * The burst's figures as one `THAW-FIGURES` line for the closing note.
 * @param {string} label
 * @param {import("./cold-burst.js").ColdBurstResult} r
 * @returns {string}
 */
export function figuresLine(label, r) {
  const tl = r.timeline.map(([t, d, p]) => `${t}ms:${d}/${p}`).join(" ");
  return `THAW-FIGURES ${label}: p50=${percentile(r.latenciesMs, 50)}ms p99=${percentile(r.latenciesMs, 99)}ms maxDesired=${r.maxDesired}@${r.maxDesiredAtMs}ms desired/ready ${tl}`;
}
