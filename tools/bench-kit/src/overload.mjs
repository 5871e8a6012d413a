import { writeFileSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";

/** Path of the overload tests' app (see overload-app.mjs). */
export const OVERLOAD_APP = fileURLToPath(new URL("./overload-app.mjs", import.meta.url));

/** The text a queue-proxy's own breaker answers with (Knative's), and the activator's queue too. */
export const QUEUE_FULL_TEXT = "pending request queue full";

/**
 * Sends `count` GETs at once, each on its own connection, in index order, and waits for every answer
 * (or error, or `timeoutMs`). Never rejects: each outcome is recorded.
 *
 * `neverArrived`, for a server whose runtime may leave a connection unread (`wrangler dev`'s local workerd
 * does, a bare Worker included: a request it reads only once the client closes): once the pending count has
 * not changed for `quietMs` (default 30 s), it is asked with that count; true (the part under test says it
 * received exactly the requests answered, so none of the pending ones reached it) ends them as error
 * `NEVER_ARRIVED`, which tallyBurst counts apart from the losses. Asked again after each further quiet spell.
 * @param {{ port: number, host: string, count: number, path?: (i: number) => string, timeoutMs?: number,
 *   neverArrived?: (pending: number) => Promise<boolean>, quietMs?: number }} o
 * @returns {Promise<import("./overload.js").BurstResult[]>}
 */
export function fireBurst({
  port,
  host,
  count,
  path = (i) => `/burst/${i}`,
  timeoutMs = 60_000,
  neverArrived,
  quietMs = 30_000,
}) {
  /** @type {Set<import("node:http").ClientRequest>} */
  const pending = new Set();
  const one = (/** @type {number} */ i) =>
    new Promise((resolve) => {
      const t0 = performance.now();
      /** @type {import("node:http").ClientRequest} */
      let req;
      const done = (/** @type {object} */ r) => {
        pending.delete(req);
        resolve({ i, ms: performance.now() - t0, ...r });
      };
      req = http.request(
        { host: "127.0.0.1", port, path: path(i), method: "GET", headers: { host }, agent: false },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (d) => {
            body += d;
          });
          res.on("end", () =>
            done({
              status: res.statusCode ?? 0,
              retryAfter: res.headers["retry-after"],
              body,
            }),
          );
          res.on("error", (e) => done({ status: 0, error: errorName(e), body }));
        },
      );
      pending.add(req);
      req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error("timeout"), { code: "TIMEOUT" })));
      req.on("error", (e) => done({ status: 0, error: errorName(e), body: "" }));
      req.end();
    });
  const all = Promise.all(Array.from({ length: count }, (_, i) => one(i)));
  if (!neverArrived) return all;
  let finished = false;
  const watch = (async () => {
    let last = -1;
    let since = performance.now();
    while (!finished) {
      await new Promise((r) => setTimeout(r, 1000));
      const n = pending.size;
      if (n !== last) {
        last = n;
        since = performance.now();
      } else if (n > 0 && performance.now() - since >= quietMs) {
        since = performance.now();
        if (!finished && (await neverArrived(n)) && pending.size === n) {
          const cut = Object.assign(new Error("never reached the server's handler"), {
            code: "NEVER_ARRIVED",
          });
          for (const req of [...pending]) req.destroy(cut);
        }
      }
    }
  })();
  return all.finally(() => {
    finished = true;
    return watch;
  });
}

/**
 * The first result that is neither 200 nor 503 with Retry-After: status (or error) and 200 characters of
 * its body; null when there is none.
 * @param {import("./overload.js").BurstResult[]} results
 */
function firstUnexpected(results) {
  const r = results.find(
    (x) => x.status !== 200 && !(x.status === 503 && x.retryAfter !== undefined) && x.error !== NEVER_ARRIVED,
  );
  return r ? { i: r.i, status: r.error ?? r.status, body: r.body.slice(0, 200) } : null;
}

/** The error of a request the server's runtime never handed to the part under test (see fireBurst). */
export const NEVER_ARRIVED = "NEVER_ARRIVED";

/** @param {unknown} e */
function errorName(e) {
  return /** @type {{ code?: string }} */ (e).code ?? String(e);
}

/**
 * Counts a burst's outcomes: by status, errors (resets, timeouts), 503s with and without Retry-After, and
 * the 503s a pod's own breaker gave (the queue-full text without Retry-After: the activator's queue-full
 * answer carries Retry-After).
 * @param {import("./overload.js").BurstResult[]} results
 */
export function tallyBurst(results) {
  /** @type {Record<string, number>} */
  const byStatus = {};
  let errors = 0;
  let retryable503 = 0;
  let bare503 = 0;
  let podQueueFull = 0;
  let neverArrived = 0;
  for (const r of results) {
    const k = r.error ? `error ${r.error}` : String(r.status);
    byStatus[k] = (byStatus[k] ?? 0) + 1;
    if (r.error === NEVER_ARRIVED) neverArrived++;
    else if (r.error) errors++;
    if (r.status === 503) {
      if (r.retryAfter !== undefined && Number(r.retryAfter) >= 1) retryable503++;
      else bare503++;
      if (r.retryAfter === undefined && r.body.includes(QUEUE_FULL_TEXT)) podQueueFull++;
    }
  }
  return { byStatus, errors, retryable503, bare503, podQueueFull, neverArrived };
}

/**
 * How far the order requests reached the app in strays from the order they were sent in: the answered
 * requests sorted by their arrival time at the app (`at` in the app's JSON), then the share of pairs that
 * are inverted (0 = the same order, 0.5 = no relation) and the largest displacement of one request.
 * @param {import("./overload.js").BurstResult[]} results
 */
export function orderAtApp(results) {
  const arrived = results
    .filter((r) => r.status === 200)
    .map((r) => ({ i: r.i, at: /** @type {{ at: number }} */ (JSON.parse(r.body)).at }))
    .sort((a, b) => a.at - b.at);
  let inverted = 0;
  for (let a = 0; a < arrived.length; a++) {
    const ia = /** @type {{ i: number }} */ (arrived[a]).i;
    for (let b = a + 1; b < arrived.length; b++)
      if (ia > /** @type {{ i: number }} */ (arrived[b]).i) inverted++;
  }
  const pairs = (arrived.length * (arrived.length - 1)) / 2;
  const ranks = [...arrived].sort((x, y) => x.i - y.i);
  const rankOf = new Map(ranks.map((r, k) => [r.i, k]));
  let maxDisplacement = 0;
  arrived.forEach((r, k) => {
    maxDisplacement = Math.max(maxDisplacement, Math.abs(k - /** @type {number} */ (rankOf.get(r.i))));
  });
  return { answered: arrived.length, invertedShare: pairs === 0 ? 0 : inverted / pairs, maxDisplacement };
}

/**
 * Opens the overload app's start gate (creates `file`) once `held()` reaches `count`, so a burst is wholly
 * held while its service is cold however slowly a loaded machine sends it: waited for while the count still
 * grows, and opened anyway once it has not grown for `stallMs` or after `maxWaitMs` in all (at load 14 a
 * burst of 1,000 through nginx took more than 15 s to be held, and the gate opened on 964).
 * @param {{ file: string, held: () => number, count: number, maxWaitMs?: number, stallMs?: number }} o
 * @returns {Promise<{ held: number, waitedMs: number }>}
 */
export async function openGateWhenHeld({ file, held, count, maxWaitMs = 90_000, stallMs = 5_000 }) {
  const t0 = performance.now();
  let last = held();
  let grewAt = t0;
  for (;;) {
    const n = held();
    const now = performance.now();
    if (n !== last) {
      last = n;
      grewAt = now;
    }
    if (n >= count || now - t0 >= maxWaitMs || now - grewAt >= stallMs) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const n = held();
  writeFileSync(file, "open\n");
  return { held: n, waitedMs: Math.round(performance.now() - t0) };
}

/**
 * What the overload tests promise never happens, counted: resets or timeouts, a pod's own breaker refusing
 * (its queue-full 503), a 503 without Retry-After, and any status other than 200 or 503. All zero (and an
 * empty list) is the promise kept.
 * @param {import("./overload.d.ts").BurstResult[]} results
 */
export function burstLosses(results) {
  const t = tallyBurst(results);
  return {
    errors: t.errors,
    podQueueFull: t.podQueueFull,
    bare503: t.bare503,
    otherStatuses: results
      .filter((r) => r.status !== 200 && r.status !== 503 && r.error !== NEVER_ARRIVED)
      .map((r) => r.status),
  };
}

/** Start of the one parseable line of figures each reliability test prints (RELIABILITY.md quotes them). */
export const FIGURES_PREFIX = "THAW-FIGURES";

/**
 * Prints `THAW-FIGURES {"test": <test>, ...figures}` as one line, so `grep -h '^THAW-FIGURES'` over a CI log
 * gives every figure of the latest run.
 * @param {string} test
 * @param {Record<string, unknown>} figures
 */
export function printFigures(test, figures) {
  console.log(`${FIGURES_PREFIX} ${JSON.stringify({ test, ...figures })}`);
}

/**
 * A burst's figures for {@link printFigures}: sent, answered by status, lost (resets, timeouts), refused by a
 * pod's own breaker, 503 with Retry-After; and each RSS group as [before, peak, after] MiB.
 * @param {import("./overload.d.ts").BurstResult[]} results
 * @param {Record<string, { beforeKiB: number, peakKiB: number, afterKiB: number }>} [rss]
 */
export function burstFigures(results, rss = {}) {
  const t = tallyBurst(results);
  const mib = (/** @type {number} */ k) => Math.round(k / 102.4) / 10;
  return {
    sent: results.length,
    byStatus: t.byStatus,
    lost: t.errors,
    neverArrived: t.neverArrived,
    podQueueFull: t.podQueueFull,
    retryable503: t.retryable503,
    // The first answer that is neither 200 nor a 503 with Retry-After (a loss, a pod's refusal, a stray
    // status): its status and the start of its body, so a failed run says where it came from.
    firstUnexpected: firstUnexpected(results),
    rssMiB: Object.fromEntries(
      Object.entries(rss).map(([k, v]) => [k, [mib(v.beforeKiB), mib(v.peakKiB), mib(v.afterKiB)]]),
    ),
  };
}
export * from "./overload-cases.mjs";
