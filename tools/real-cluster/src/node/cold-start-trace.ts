import { type ChildProcess, spawn } from "node:child_process";
import { watch } from "./api.js";
import {
  type ColdStartMoments,
  findLogLine,
  helloFirst,
  helloMs,
  parseCtrEvent,
} from "./cold-start-split.js";
import { run } from "./netns.js";
import { type PodPhases, watchPodPhases } from "./pod-phases.js";
import type { ThawOnNode } from "./thaw-on-node.js";

/** A log line found: when (epoch ms) and its text. */
type LogLine = NonNullable<ReturnType<typeof findLogLine>>;

/** A cold start of one app being traced: its pod's phases as they come, every moment once it is over. */
export interface ColdStartTrace {
  /**
   * Resolves once every watch's connection is up and `ctr events` runs (rejects when a watch fails): send
   * the request after it (and `begin()`), so opening them (TLS handshakes, a Go binary's start) does not
   * compete with the cold start for CPU.
   */
  readonly ready: Promise<void>;
  /** Marks t0, the moment the request is sent (now), and returns it (epoch ms). */
  begin(): number;
  /** The pod's phases, ms after t0 (watchPodPhases): resolves once it is in the Service's endpoints and Ready. */
  readonly phases: Promise<PodPhases>;
  /**
   * Every moment of the cold start (ms after t0), once `phases` resolved and the first byte came with
   * `body` (the hello app's answer): reads the containers' logs, the autoscalers' scale records and
   * containerd's task events of the pod.
   */
  moments(pod: PodPhases, firstByte: number, body: string): Promise<ColdStartMoments>;
  /** Ends the watches and the `ctr events` process (by its PID). Idempotent. */
  stop(): void;
}

/** At most this many containerd event lines are kept: a cold start makes a few dozen. */
const MAX_EVENT_LINES = 5000;

/**
 * Starts tracing the next cold start of Deployment `name` (its pods labelled `app.kubernetes.io/name=name`,
 * its Service `name`) in `namespace`: watches the Deployment and its ReplicaSets for spec.replicas going to
 * 1, the pod's phases, and containerd's events for its task starts, all by this process's clock, which the
 * node's processes share. Moments are ms after `begin()`.
 */
export function traceColdStart(t: ThawOnNode, namespace: string, name: string): ColdStartTrace {
  const cp = t.cluster.controlPlane;
  let t0 = Number.NaN;
  // Epoch ms of the first sight of spec.replicas >= 1.
  const seen: { scaleWritten?: number; rsScaled?: number } = {};
  const q = encodeURIComponent;
  const scaledTo = (k: "scaleWritten" | "rsScaled") => (e: { object: { spec?: { replicas?: number } } }) => {
    if ((e.object.spec?.replicas ?? 0) >= 1) seen[k] ??= Date.now();
  };
  let failed!: (e: Error) => void;
  const failure = new Promise<never>((_, reject) => {
    failed = reject;
  });
  failure.catch(() => {});
  const watches = [
    watch(
      cp,
      `/apis/apps/v1/namespaces/${namespace}/deployments?fieldSelector=${q(`metadata.name=${name}`)}`,
      scaledTo("scaleWritten"),
      failed,
    ),
    watch(
      cp,
      `/apis/apps/v1/namespaces/${namespace}/replicasets?labelSelector=${q(`app.kubernetes.io/name=${name}`)}`,
      scaledTo("rsScaled"),
      failed,
    ),
  ];
  // Epoch ms (t0 0): made relative to t0 once it is known.
  const pod = watchPodPhases(cp, namespace, `app.kubernetes.io/name=${name}`, name, 0);
  pod.done.catch(failed);
  const stops = [...watches.map((w) => () => w.stop()), () => pod.stop()];
  const opened = [...watches.map((w) => w.opened), pod.opened];
  const socket = t.cluster.node.containerd.socket;
  const lines: string[] = [];
  let ctr: ChildProcess | undefined = spawn("ctr", ["--address", socket, "events"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  opened.push(new Promise<void>((r) => ctr?.once("spawn", () => r())));
  let buf = "";
  ctr.stdout?.setEncoding("utf8").on("data", (c: string) => {
    buf += c;
    const parts = buf.split("\n");
    buf = parts.pop() ?? "";
    for (const l of parts) if (lines.length < MAX_EVENT_LINES) lines.push(l);
  });
  const stop = () => {
    for (const s of stops.splice(0)) s();
    if (ctr?.pid !== undefined && ctr.exitCode === null) process.kill(ctr.pid, "SIGTERM");
    ctr = undefined;
  };

  /** containerd's task starts of `podName`: the sandbox's and each container's (by name), epoch ms. */
  const taskStarts = (podName: string) => {
    const out = new Map<string, number>();
    for (const l of lines) {
      const e = parseCtrEvent(l);
      const id = e?.topic === "/tasks/start" ? e.body.container_id : undefined;
      if (typeof id !== "string") continue;
      let info: { Labels?: Record<string, string> };
      try {
        info = JSON.parse(run("ctr", ["--address", socket, "-n", "k8s.io", "containers", "info", id]));
      } catch {
        continue; // gone already (an earlier pod's container)
      }
      const labels = info.Labels ?? {};
      if (labels["io.kubernetes.pod.name"] !== podName) continue;
      const key =
        labels["io.cri-containerd.kind"] === "sandbox" ? "sandbox" : labels["io.kubernetes.container.name"];
      if (key && !out.has(key)) out.set(key, e?.at as number);
    }
    return out;
  };

  /**
   * For each of `res`, the first log line of `container` in `podName` matching it, from one read of the
   * log; throws when one has none.
   */
  const logLines = async <R extends readonly RegExp[]>(
    podName: string,
    container: string,
    ...res: R
  ): Promise<{ [K in keyof R]: LogLine }> => {
    const log = await t.kubectl(["-n", namespace, "logs", "--timestamps", podName, "-c", container]);
    return res.map((re) => {
      const hit = findLogLine(log, re);
      if (!hit)
        throw new Error(`no line matching ${re} in ${podName}/${container}'s log: ${log.slice(0, 300)}`);
      return hit;
    }) as { [K in keyof R]: LogLine };
  };

  /** The leader autoscaler's scale record from 0 for this app, at or after t0 (its `t`, epoch ms). */
  const decidedAt = async () => {
    const log = await t.kubectl([
      "-n",
      "thaw-system",
      "logs",
      "-l",
      "app.kubernetes.io/name=thaw-autoscaler",
      "--tail=500",
    ]);
    let at: number | undefined;
    for (const line of log.split("\n")) {
      if (!line.startsWith("{")) continue;
      let r: { msg?: string; t?: number; namespace?: string; revision?: string; from?: number };
      try {
        r = JSON.parse(line);
      } catch {
        continue;
      }
      if (r.msg !== "scale" || r.namespace !== namespace || r.revision !== name || r.from !== 0) continue;
      if (typeof r.t === "number" && r.t >= t0 && (at === undefined || r.t < at)) at = r.t;
    }
    if (at === undefined)
      throw new Error(`no autoscaler scale record of ${namespace}/${name} from 0 after t0`);
    return at;
  };

  const relative = (p: PodPhases): PodPhases => {
    const out = { ...p };
    for (const k of ["created", "scheduled", "sandbox", "started", "ready", "listed", "endpoints"] as const)
      out[k] = p[k] - t0;
    return out;
  };
  return {
    ready: Promise.race([Promise.all(opened).then(() => {}), failure]),
    begin: () => {
      t0 = Date.now();
      return t0;
    },
    phases: pod.done.then(relative),
    async moments(p, firstByte, body) {
      const starts = taskStarts(p.pod);
      const rel = (at: number | undefined, what: string) => {
        if (at === undefined) throw new Error(`no ${what} seen for ${p.pod}`);
        return at - t0;
      };
      const [listening, firstLine] = await logLines(
        p.pod,
        "user-container",
        /listening on/,
        /first request answered/,
      );
      const after = helloMs(listening.text, "after");
      const up = helloMs(body, "up");
      if (after === undefined || up === undefined)
        throw new Error(`no app times in ${JSON.stringify(listening.text)} and ${JSON.stringify(body)}`);
      const first = helloFirst(firstLine.text);
      if (first === undefined) throw new Error(`no app times in ${JSON.stringify(firstLine.text)}`);
      const [qp] = await logLines(p.pod, "queue-proxy", /thaw-queue-proxy listening/);
      return {
        ...p,
        decided: rel(await decidedAt(), "scale decision"),
        scaleWritten: rel(seen.scaleWritten, "scale write"),
        rsScaled: rel(seen.rsScaled, "ReplicaSet scale"),
        sandboxStarted: rel(starts.get("sandbox"), "sandbox task start"),
        appStarted: rel(starts.get("user-container"), "user-container task start"),
        queueProxyStarted: rel(starts.get("queue-proxy"), "queue-proxy task start"),
        appListening: rel(listening.at, "app listening"),
        queueProxyListening: rel(qp.at, "queue-proxy listening"),
        listenToAnswerMs: up - after,
        listenToFirstMs: first.acceptedMs - after,
        firstAnswerMs: first.answeredMs - first.acceptedMs,
        firstByte,
      };
    },
    stop,
  };
}
