import { spawn } from "node:child_process";

const UNIT_MS = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * One of wrk's durations ("52.31us", "1.20ms", "2.00s", "1.00m") in milliseconds; NaN if it is not one.
 * @param {string} v
 */
export function toMs(v) {
  const m = /^([\d.]+)(us|ms|s|m|h)$/.exec(v);
  if (!m) return Number.NaN;
  return Number(m[1]) * UNIT_MS[/** @type {keyof typeof UNIT_MS} */ (m[2])];
}

/**
 * What one wrk run reports. Latencies in ms (NaN when wrk did not print them: percentiles need
 * `--latency`); `errors` is non-2xx/3xx responses plus every socket error.
 * @typedef {{ requests: number, rps: number, mean: number, p50: number, p75: number, p90: number,
 *   p99: number, non2xx: number, socketErrors: number, errors: number }} WrkResult
 */

/**
 * Reads wrk's text report; undefined when it has no "N requests in" line (wrk failed or was killed).
 * @param {string} out
 * @returns {WrkResult | undefined}
 */
export function parseWrk(out) {
  const requests = /(\d+) requests in/.exec(out)?.[1];
  if (requests === undefined) return undefined;
  const pct = (/** @type {number} */ p) => toMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, "m").exec(out)?.[1] ?? "");
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  return {
    requests: Number(requests),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN),
    // The first "Latency" is the thread-stats row (avg, stdev, max); the distribution follows it.
    mean: toMs(/Latency\s+(\S+)/.exec(out)?.[1] ?? ""),
    p50: pct(50),
    p75: pct(75),
    p90: pct(90),
    p99: pct(99),
    non2xx,
    socketErrors,
    errors: non2xx + socketErrors,
  };
}

/**
 * The argument list for one wrk run with `--latency` (threads, connections, whole seconds, headers, a Lua
 * `script` file that shapes each request, url).
 * @param {{ url: string, connections: number, seconds: number, threads?: number, headers?: Record<string, string>, script?: string }} o
 */
export function wrkArgs({ url, connections, seconds, threads = 1, headers = {}, script }) {
  const h = Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]);
  const s = script === undefined ? [] : ["-s", script];
  return [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, "--latency", ...h, ...s, url];
}

/**
 * Runs wrk once (under `taskset -c <cpu>` when `cpu` is given) and parses its report. Rejects with wrk's
 * output when it failed; a timer kills it `graceSeconds` after its duration so a stuck run cannot hang a
 * benchmark. `bin` replaces the wrk executable (the tests use a script that prints a captured report).
 * @param {{ url: string, connections: number, seconds: number, threads?: number,
 *   headers?: Record<string, string>, script?: string, cpu?: string, graceSeconds?: number, bin?: string }} options
 * @returns {Promise<WrkResult>}
 */
export function runWrk(options) {
  const args = wrkArgs(options);
  const bin = options.bin ?? "wrk";
  const [file, argv] =
    options.cpu === undefined ? [bin, args] : ["taskset", ["-c", options.cpu, bin, ...args]];
  return new Promise((resolve, reject) => {
    const p = spawn(file, argv, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    p.stdout.on("data", (d) => {
      out += d;
    });
    p.stderr.on("data", (d) => {
      out += d;
    });
    const killer = setTimeout(
      () => p.kill("SIGKILL"),
      (options.seconds + (options.graceSeconds ?? 15)) * 1000,
    );
    p.on("error", (err) => {
      clearTimeout(killer);
      reject(new Error(`wrk failed to start: ${err.message}`));
    });
    p.on("close", (code, signal) => {
      clearTimeout(killer);
      const r = parseWrk(out);
      if (r) resolve(r);
      else reject(new Error(`wrk failed (${signal ?? `exit ${code}`}): ${out}`));
    });
  });
}
