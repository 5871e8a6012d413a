/**
 * Where a cold start's time goes on a real node: the moments a trace collected (watch events, containerd's
 * task events, the containers' log timestamps, the app's own times) turned into consecutive parts of the
 * critical path, and the parsers for those sources. Pure: the bench and its unit test share it.
 */

/** Moments of one cold start, ms after the request was sent (t0), all by the host's clock. */
export interface ColdStartMoments {
  /** The autoscaler's scale record from 0 (its `t`). */
  decided: number;
  /** The Deployment's spec.replicas seen >= 1 (watch). */
  scaleWritten: number;
  /** Its ReplicaSet's spec.replicas seen >= 1 (watch). */
  rsScaled: number;
  created: number;
  scheduled: number;
  /** containerd's task start of the pod's sandbox, the app's container and the queue-proxy's. */
  sandboxStarted: number;
  appStarted: number;
  queueProxyStarted: number;
  /** The containers' "listening" lines, by the CRI log's own timestamps. */
  queueProxyListening: number;
  appListening: number;
  /**
   * From the app listening to it answering the request, by the app's own clock (its answer's "up N ms"
   * less its listening line's "after N ms"): exact, where the CRI log's timestamps lag the line a little.
   */
  listenToAnswerMs: number;
  /**
   * The app's first request (the queue-proxy's readiness probe), by the app's own clock: from its listening
   * line to that request's connection (the queue-proxy's poll: Thaw's), and from there to its answer (the
   * app's own first-request cost: its start-up's).
   */
  listenToFirstMs: number;
  firstAnswerMs: number;
  /** The pod's IP in the Service's EndpointSlice, ready or not (when the activator can first probe it). */
  listed: number;
  /** The pod's Ready condition and the EndpointSlice listing it ready (off the path: shown beside). */
  ready: number;
  endpoints: number;
  firstByte: number;
}

/** One part of the critical path; `thaw` says whether it counts in Thaw's share. */
export interface ColdStartPart {
  key: string;
  label: string;
  ms: number;
  thaw: boolean;
}

/**
 * The critical path from the request to its first byte, in parts that add up to the first byte: the
 * kubelet's part (scheduled -> the app's container started) and the app's own start-up (its container
 * started -> it listens, and the time it took over its first request: Node compiles its HTTP server path
 * then, 2-7 ms on the real node) are not Thaw's, whoever sent that first request; everything else is (the
 * scheduler included, as the goal counts it). The app answers at once (WORK_MS 0), so its answer to the
 * cold request is when that request reached it.
 */
export function splitColdStart(m: ColdStartMoments): ColdStartPart[] {
  const answered = m.appListening + m.listenToAnswerMs;
  const part = (key: string, label: string, ms: number, thaw = true) => ({ key, label, ms, thaw });
  return [
    part("toDecision", "request -> autoscaler's decision (nginx, hook, activator)", m.decided),
    part("toWrite", "decision -> Deployment scaled (scale GET + PATCH)", m.scaleWritten - m.decided),
    part("toCreated", "Deployment -> pod created (ReplicaSet controllers)", m.created - m.scaleWritten),
    part("toScheduled", "created -> scheduled (kube-scheduler)", m.scheduled - m.created),
    part("kubelet", "scheduled -> app container started (kubelet)", m.appStarted - m.scheduled, false),
    part("app", "app container started -> app listening (app)", m.appListening - m.appStarted, false),
    part("toProbe", "app listening -> its first request (queue-proxy's poll)", m.listenToFirstMs),
    part("appFirst", "the app's first answer (its own first-request cost)", m.firstAnswerMs, false),
    part(
      "toApp",
      "app's first answer -> request at the app (probes, hops)",
      m.listenToAnswerMs - m.listenToFirstMs - m.firstAnswerMs,
    ),
    part("back", "app's answer -> first byte (the way back)", m.firstByte - answered),
  ];
}

/** Thaw's share: the sum of the parts that count for it. */
export function thawShare(parts: readonly ColdStartPart[]): number {
  return parts.filter((p) => p.thaw).reduce((s, p) => s + p.ms, 0);
}

/** One `ctr events` line: when (epoch ms), the topic and its JSON body; undefined for anything else. */
export function parseCtrEvent(
  line: string,
): { at: number; topic: string; body: Record<string, unknown> } | undefined {
  // Go's time.Time: `2026-12-06 02:55:01.123456789 +0000 UTC`, then namespace, topic, JSON.
  const m = line.match(
    /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d+))? ([+-]\d\d)(\d\d) \S+ \S+ (\/\S+) (\{.*\})\s*$/,
  );
  if (!m) return undefined;
  const ms = (m[3] ?? "").padEnd(3, "0").slice(0, 3);
  const at = Date.parse(`${m[1]}T${m[2]}.${ms}${m[4]}:${m[5]}`);
  try {
    return { at, topic: m[6] as string, body: JSON.parse(m[7] as string) as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

/** The first line of a `kubectl logs --timestamps` output matching `re`: its time (epoch ms) and text. */
export function findLogLine(log: string, re: RegExp): { at: number; text: string } | undefined {
  for (const line of log.split("\n")) {
    const m = line.match(/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d) (.*)$/);
    if (!m || !re.test(m[4] as string)) continue;
    const ms = (m[2] ?? "").padEnd(3, "0").slice(0, 3);
    return { at: Date.parse(`${m[1]}.${ms}${m[3]}`), text: m[4] as string };
  }
  return undefined;
}

/** The hello app's own times: "after N ms" of its listening line, "up N ms" of its answer. */
export function helloMs(text: string, what: "after" | "up"): number | undefined {
  const m = text.match(what === "after" ? /listening on \S+ after (\d+) ms/ : /\(up (\d+) ms\)/);
  return m ? Number(m[1]) : undefined;
}

/** The hello app's first-request line: ms after its start when that request's connection came and its answer went. */
export function helloFirst(text: string): { acceptedMs: number; answeredMs: number } | undefined {
  const m = text.match(/first request answered after (\d+) ms \(its connection accepted after (\d+) ms\)/);
  return m ? { answeredMs: Number(m[1]), acceptedMs: Number(m[2]) } : undefined;
}

/** A `Server-Timing` header's durations by name (`queued;dur=12, upstream;dur=3`). */
export function parseServerTiming(header: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of (header ?? "").split(",")) {
    const [name, ...params] = entry.trim().split(";");
    const dur = params.map((p) => p.trim().match(/^dur=([\d.]+)$/)).find(Boolean);
    if (name && dur) out[name] = Number(dur[1]);
  }
  return out;
}
