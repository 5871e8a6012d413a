// Where the time (or the memory) goes, for a figure that missed its target (issue 19 asks a profile for
// every MISS). A bench starts the process it measures once more with `cpuProfileArgs(label)` in front of
// its script, drives the same load, stops it (SIGINT: the process must exit through process.exit so V8
// writes the profile), and prints `printCpuProfile(label, file)` (`profileServer` does all four):
//
//   profile thaw-queue-proxy c=64 (1,842 ms busy of 4,020 ms; idle 54%)
//     31.2%  (native) writeBuffer / writev / ...           the sockets
//     12.0%  thaw:queue-proxy/h1-connection.ts
//
// Whether a bench profiles at all: THAW_BENCH_PROFILE = "miss" (default: only after a MISS), "always", or
// "never". Profiles are kept under <repo>/bench-results/profiles/ to open in Chrome DevTools.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");

/** The folder profiles are written to (THAW_BENCH_PROFILE_DIR, else <repo>/bench-results/profiles). */
export function profileDir() {
  return process.env.THAW_BENCH_PROFILE_DIR || join(repoRoot, "bench-results/profiles");
}

/**
 * Whether to take a profile after a figure that passed (`pass`), per THAW_BENCH_PROFILE.
 * @param {boolean} pass
 */
export function shouldProfile(pass) {
  const mode = process.env.THAW_BENCH_PROFILE || "miss";
  if (mode === "never") return false;
  if (mode === "always") return true;
  if (mode !== "miss")
    throw new TypeError(`THAW_BENCH_PROFILE must be miss, always or never, got ${JSON.stringify(mode)}`);
  return !pass;
}

/**
 * Node flags that make a process write its CPU profile to `<profileDir>/<label>.cpuprofile` at exit,
 * and that file's path.
 * @param {string} label
 * @returns {{ args: string[], file: string }}
 */
export function cpuProfileArgs(label) {
  const dir = profileDir();
  mkdirSync(dir, { recursive: true });
  const name = `${label.replace(/[^A-Za-z0-9._-]+/g, "-")}.cpuprofile`;
  return {
    args: ["--cpu-prof", `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}`],
    file: join(dir, name),
  };
}

/**
 * The group a profiled function belongs to: V8's pseudo-frames as they are, our sources by app or package
 * and file, dependencies by package, Node's own modules by module, and native code by function.
 * @param {{ functionName: string, url: string }} frame
 */
export function frameCategory(frame) {
  const { functionName, url } = frame;
  if (functionName.startsWith("(") && url === "") return functionName;
  if (url === "") return `(native) ${functionName || "anonymous"}`;
  if (url.startsWith("node:")) return url.replace(/^node:internal\//, "node:");
  const dep = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dep) return dep[1] ?? url;
  const ours = /\/(?:apps|packages|tools)\/([^/]+)\/(?:dist|src|bench)\/(.+?)(?:\.[mc]?js)?$/.exec(url);
  if (ours) return `thaw:${ours[1]}/${ours[2]}`;
  return url.replace(/^file:\/\//, "");
}

/**
 * Self time of a V8 CPU profile (`.cpuprofile` JSON) by {@link frameCategory} and by function, in
 * microseconds, with the idle share apart so shares are of busy time.
 * @param {{ nodes: Array<{ id: number, callFrame: { functionName: string, url: string, lineNumber: number } }>, samples: number[], timeDeltas: number[], startTime: number, endTime: number }} profile
 */
export function summarizeCpuProfile(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  /** @type {Map<number, number>} */
  const selfUs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    // A sample's time is the gap to the next one (V8's own convention in DevTools).
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const id = profile.samples[i] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, dt));
  }
  let idleUs = 0;
  /** @type {Map<string, number>} */
  const categories = new Map();
  /** @type {Map<string, number>} */
  const functions = new Map();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    if (frame.functionName === "(idle)") {
      idleUs += us;
      continue;
    }
    const cat = frameCategory(frame);
    categories.set(cat, (categories.get(cat) ?? 0) + us);
    const where = frame.url ? ` ${frame.url.split("/").slice(-2).join("/")}:${frame.lineNumber + 1}` : "";
    const fn = `${frame.functionName || "(anonymous)"}${where}`;
    functions.set(fn, (functions.get(fn) ?? 0) + us);
  }
  const busyUs = [...categories.values()].reduce((a, b) => a + b, 0);
  const sorted = (/** @type {Map<string, number>} */ m) =>
    [...m].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, us, share: busyUs ? us / busyUs : 0 }));
  return {
    wallUs: profile.endTime - profile.startTime,
    busyUs,
    idleUs,
    categories: sorted(categories),
    functions: sorted(functions),
  };
}

/**
 * Prints where a process's busy time went: the `top` categories and the `top` functions by self time.
 * Returns the summary, or undefined (with a line saying why) when the profile is missing or unreadable.
 * @param {string} label
 * @param {string} file
 * @param {{ top?: number }} [opts]
 */
export function printCpuProfile(label, file, opts = {}) {
  const top = opts.top ?? 10;
  let summary;
  try {
    summary = summarizeCpuProfile(JSON.parse(readFileSync(file, "utf8")));
  } catch (err) {
    console.log(`  profile ${label}: none (${err instanceof Error ? err.message : err})`);
    return undefined;
  }
  const ms = (/** @type {number} */ us) => Math.round(us / 1000).toLocaleString("en-US");
  const idle = summary.wallUs ? (100 * summary.idleUs) / summary.wallUs : 0;
  console.log(
    `  profile ${label} (${ms(summary.busyUs)} ms busy of ${ms(summary.wallUs)} ms; idle ${idle.toFixed(0)}%; ${file})`,
  );
  const row = (/** @type {{ name: string, share: number }} */ r) =>
    console.log(`    ${(100 * r.share).toFixed(1).padStart(5)}%  ${r.name}`);
  console.log("    by part:");
  summary.categories.slice(0, top).forEach(row);
  console.log("    by function:");
  summary.functions.slice(0, top).forEach(row);
  return summary;
}

/**
 * Live memory of a V8 heap snapshot (`.heapsnapshot` JSON, e.g. from `v8.writeHeapSnapshot()` or
 * `--heapsnapshot-signal`) by constructor name: self size and count, largest first.
 * @param {{ snapshot: { meta: { node_fields: string[], node_types: unknown[] } }, nodes: number[], strings: string[] }} snap
 */
export function summarizeHeapSnapshot(snap) {
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const typeNames = /** @type {string[]} */ (snap.snapshot.meta.node_types[0]);
  /** @type {Map<string, { bytes: number, count: number }>} */
  const byName = new Map();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = typeNames[snap.nodes[i + typeAt] ?? 0] ?? "?";
    const size = snap.nodes[i + sizeAt] ?? 0;
    total += size;
    // Objects and closures group by their constructor or function name, the rest by V8's type.
    const name =
      type === "object" || type === "closure" || type === "native"
        ? `${type === "closure" ? "closure " : ""}${snap.strings[snap.nodes[i + nameAt] ?? 0] ?? "?"}`
        : `(${type})`;
    const e = byName.get(name) ?? { bytes: 0, count: 0 };
    e.bytes += size;
    e.count += 1;
    byName.set(name, e);
  }
  const rows = [...byName].map(([name, e]) => ({ name, ...e })).sort((a, b) => b.bytes - a.bytes);
  return { totalBytes: total, rows };
}

/**
 * Prints a heap snapshot's `top` constructors by self size, with count and bytes per object, and divided by
 * `per` things (e.g. held requests) when given.
 * @param {string} label
 * @param {string} file
 * @param {{ top?: number, per?: { count: number, what: string } }} [opts]
 */
export function printHeapSnapshot(label, file, opts = {}) {
  let summary;
  try {
    summary = summarizeHeapSnapshot(JSON.parse(readFileSync(file, "utf8")));
  } catch (err) {
    console.log(`  heap ${label}: none (${err instanceof Error ? err.message : err})`);
    return undefined;
  }
  const mb = (/** @type {number} */ b) => (b / 1048576).toFixed(1);
  const per = opts.per;
  console.log(
    `  heap ${label}: ${mb(summary.totalBytes)} MB live` +
      (per ? `, ${(summary.totalBytes / per.count / 1024).toFixed(1)} KB per ${per.what}` : "") +
      ` (${file})`,
  );
  for (const r of summary.rows.slice(0, opts.top ?? 12)) {
    const each = per ? `  ${(r.count / per.count).toFixed(1)} per ${per.what}` : "";
    console.log(
      `    ${mb(r.bytes).padStart(7)} MB  ${String(r.count).padStart(8)} x ${String(Math.round(r.bytes / r.count)).padStart(5)} B  ${r.name}${each}`,
    );
  }
  return summary;
}

/**
 * Profiles one server under load and prints where its time went: `startServer(nodeFlags)` starts it with
 * the profile flags in front of its script (a `startGroup` server), `drive(server)` loads it (e.g. one wrk
 * run), then it gets SIGINT (servers end at once on it, where SIGTERM may start a long drain), and V8
 * writes the profile as it exits (within 10 s, else it is killed and the line says there is no profile).
 * @param {string} label
 * @param {(nodeFlags: string[]) => import("./groups.mjs").GroupServer | Promise<import("./groups.mjs").GroupServer>} startServer
 * @param {(server: import("./groups.mjs").GroupServer) => Promise<unknown>} drive
 */
export async function profileServer(label, startServer, drive) {
  const { args, file } = cpuProfileArgs(label);
  rmSync(file, { force: true });
  const server = await startServer(args);
  try {
    await drive(server);
  } finally {
    await new Promise((resolve) => {
      if (server.proc.exitCode !== null || server.proc.signalCode !== null) return resolve(undefined);
      const timer = setTimeout(() => {
        try {
          if (server.pid) process.kill(-server.pid, "SIGKILL");
        } catch {}
        resolve(undefined);
      }, 10_000);
      server.proc.once("exit", () => {
        clearTimeout(timer);
        resolve(undefined);
      });
      server.proc.kill("SIGINT");
    });
  }
  return printCpuProfile(label, file);
}

/**
 * Profiles `fn` in this very process (V8's profiler through node:inspector), writes the profile to
 * `<profileDir>/<label>.cpuprofile` and prints where the time went, as {@link printCpuProfile}.
 * @param {string} label
 * @param {() => unknown} fn
 */
export async function profileInProcess(label, fn) {
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  try {
    await fn();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    session.disconnect();
    const { file } = cpuProfileArgs(label);
    writeFileSync(file, JSON.stringify(profile));
    printCpuProfile(label, file);
  }
}
