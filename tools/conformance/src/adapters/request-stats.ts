import { ConcurrencyReporter, RequestStats, StatReporter } from "@thaw/activation";
import { ManualClock } from "@thaw/clock/testing";
import type { WireStatMessage } from "@thaw/protocol";
import { statMetricsResponse } from "@thaw/protocol";
import { diff } from "../compare.js";
import { dispatch, type Kind } from "../shape.js";
import { type Adapter, fail, type Outcome, pass, type Vector } from "../types.js";

type Rec = Record<string, unknown>;

function check(actual: unknown, expected: unknown): Outcome {
  const d = diff(actual, expected);
  return d ? fail(d) : pass;
}

function requestStats(i: Rec, e: Rec): Outcome {
  const s = new RequestStats(Number(i.createdAtMs));
  const reports: Rec[] = [];
  for (const ev of i.events as { event: string; atMs: number }[]) {
    if (ev.event === "in") s.requestIn(ev.atMs);
    else if (ev.event === "out") s.requestOut(ev.atMs);
    else if (ev.event === "proxiedIn") s.proxiedIn(ev.atMs);
    else if (ev.event === "proxiedOut") s.proxiedOut(ev.atMs);
    else if (ev.event === "report") reports.push({ ...s.report(ev.atMs) });
    else return fail(`unknown event ${ev.event}`);
  }
  return check({ reports }, e);
}

async function protobufReporter(i: Rec, e: Rec): Promise<Outcome> {
  const now = 1_700_000_000_000;
  const started = now - Number(i.startedSecondsAgo ?? 0) * 1000;
  const r = new StatReporter(String(i.podName), Number(i.reportingPeriodSec) * 1000, started);
  if (i.report) r.report(i.report as never, now);
  const { processUptime, ...stat } = r.stat;
  // proto3 leaves zero fields out; the vector lists only the non-zero ones.
  const nonZero = Object.fromEntries(Object.entries(stat).filter(([, v]) => v !== 0 && v !== ""));
  const want = e.stat as Rec;
  const d = diff(nonZero, want, "$.stat");
  if (d) return fail(d);
  if (Array.isArray(e.processUptimeRange)) {
    const [lo, hi] = e.processUptimeRange as [number, number];
    if (!(processUptime >= lo && processUptime <= hi))
      return fail(`processUptime ${processUptime} not in [${lo}, ${hi}]`);
  } else if (processUptime !== 0) {
    return fail(`processUptime ${processUptime} before the first report`);
  }
  if ("httpStatus" in e || "contentType" in e) {
    const res = statMetricsResponse(r.stat);
    const body = new Uint8Array(await res.arrayBuffer());
    const name = new TextEncoder().encode(String(i.podName));
    // Only pod_name is set: tag 0x0a, length, bytes.
    const expectBody = Uint8Array.from([0x0a, name.length, ...name]);
    if (body.length !== expectBody.length || body.some((b, k) => b !== expectBody[k])) {
      return fail(`protobuf body ${[...body].join(",")} is not just pod_name`);
    }
    return check(
      { httpStatus: res.status, contentType: res.headers.get("content-type") },
      {
        httpStatus: e.httpStatus,
        contentType: e.contentType,
      },
    );
  }
  return pass;
}

function byKey(a: { key: string }, b: { key: string }): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function concurrencyReporter(i: Rec, e: Rec): Outcome {
  const sent: WireStatMessage[] = [];
  const reporter = new ConcurrencyReporter({
    podName: String(i.podName),
    clock: new ManualClock(0),
    send: (msgs) => sent.push(...msgs),
  });
  for (const op of i.ops as { op: string; atMs: number; key?: string }[]) {
    const rev = { namespace: "default", name: String(op.key) };
    if (op.op === "start") reporter.requestIn(rev, op.atMs);
    else if (op.op === "end") reporter.requestOut(rev, op.atMs);
    else if (op.op === "tick") sent.push(...reporter.report(op.atMs));
    else return fail(`unknown op ${op.op}`);
  }
  for (const m of sent) {
    if (!m.stat) return fail(`message for ${m.name} has no stat`);
    if (m.stat.averageProxiedConcurrentRequests !== 0 || m.stat.proxiedRequestCount !== 0) {
      return fail(`activator stat for ${m.name} has proxied fields set`);
    }
  }
  const messages = sent
    .map((m) => ({
      key: m.name,
      averageConcurrentRequests: m.stat?.averageConcurrentRequests,
      requestCount: m.stat?.requestCount,
      podName: m.stat?.podName,
    }))
    .sort(byKey);
  // The README: compare both sides after a stable sort by key (emission order within one key).
  return check(messages, [...(e.messages as { key: string }[])].sort(byKey));
}

const isKind = (kind: string) => ({
  test: (v: Vector) => v.input.kind === kind,
  text: `input.kind = ${kind}`,
});

/** Every kind request-stats.json holds, by the shape of its input and expect. */
export const kinds: readonly Kind[] = [
  {
    name: "request stats",
    input: ["kind", "createdAtMs", "events"],
    when: isKind("requestStats"),
    expect: ["reports"],
    run: (v) => requestStats(v.input, v.expect),
  },
  {
    name: "protobuf stats reporter",
    input: ["kind", "podName", "report", "reportingPeriodSec"],
    optionalInput: ["startedSecondsAgo"],
    when: isKind("protobufReporter"),
    expect: ["stat"],
    optionalExpect: ["processUptimeRange", "contentType", "httpStatus"],
    run: (v) => protobufReporter(v.input, v.expect),
  },
  {
    name: "activator concurrency reporter",
    input: ["kind", "ops", "podName"],
    when: isKind("activatorConcurrencyReporter"),
    expect: ["messages"],
    optionalExpect: ["orderNote"],
    run: (v) => concurrencyReporter(v.input, v.expect),
  },
];

/** Drives @thaw/activation's request stats and reporters with request-stats.json. */
export const adapter: Adapter = { run: (v) => dispatch(kinds, v) };
