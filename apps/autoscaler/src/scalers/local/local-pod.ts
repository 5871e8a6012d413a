import { get as httpGet } from "node:http";
import { Header, ProbeValue, UserAgent } from "@thaw/protocol";
import { type GroupChild, spawnGroup } from "./child.js";
import { type LentPorts, lendPorts } from "./free-port.js";
import { listeningPorts } from "./listening-ports.js";
import { type LocalServiceSpec, type PodPorts, queueProxyEnv, userAppEnv } from "./pod-env.js";
import {
  diedProblem,
  exitProblem,
  keepTail,
  type PodProblem,
  portProblem,
  queueProxyExitProblem,
} from "./pod-problem.js";
import type { Reaper } from "./reaper.js";
import { QUEUE_PROXY_RUNNER_ENV } from "./runner-env.js";
import type { Spare } from "./spare.js";
import { launchScript } from "./spare-launcher.js";

/** Options of {@link LocalPod}. */
export interface LocalPodOptions {
  spec: LocalServiceSpec;
  name: string;
  /** The pod's number when `spec.replicas` numbers them. */
  replica?: number;
  /** argv that starts `thaw-queue-proxy` (unused when `spec.queueProxy` names another queue-proxy). */
  queueProxyCommand: readonly string[];
  /** A queue-proxy started ahead of time to take instead of spawning `queueProxyCommand`, if one waits. */
  spare?: Spare;
  /** A launcher started ahead of time to exec the app instead of spawning it (spare-launcher.ts), if one waits. */
  launcher?: AppLauncher;
  /** Kills the pod's process groups if this process dies without stopping the pod. */
  reaper: Reaper;
  /** Environment the children inherit (usually process.env). */
  baseEnv: Readonly<Record<string, string | undefined>>;
  /** Each output line of the pod's two containers. */
  onLine?: (container: "queue-proxy" | "app", line: string) => void;
  /** The pod's readiness or liveness changed. */
  onChange: () => void;
  /** Period of the queue probe while starting (Knative's aggressive probing: 50 ms). */
  startProbeMs?: number;
  /** Period of the queue probe once ready. */
  readyProbeMs?: number;
  /** After SIGTERM, how long to wait for a container before SIGKILL. */
  killAfterMs: number;
  now: () => number;
}

/** The spare launchers of a scaler: the spare, the environment it runs with and its script's end line. */
export interface AppLauncher {
  spare: Spare;
  env: Readonly<Record<string, string | undefined>>;
  end: string;
}

/**
 * The queue probe kubelet runs against a queue-proxy's serving port: `GET /` with `K-Network-Probe: queue`,
 * ready on 200 with the body `queue` (what any Knative-compatible queue-proxy answers once its app is ready).
 * One connection per probe (no keep-alive), as kubelet does, so probes never hold a draining pod open; that
 * is why this is not @thaw/activation's `probeDestination`, which probes `/healthz` over a pooled fetch.
 */
function queueProbe(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpGet(
      {
        host: "127.0.0.1",
        port,
        path: "/",
        agent: false,
        headers: {
          [Header.networkProbe]: ProbeValue.queue,
          [Header.userAgent]: `${UserAgent.kubeletPrefix}thaw`,
          connection: "close",
        },
        timeout: timeoutMs,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          if (body.length < 64) body += chunk;
        });
        res.on("end", () => resolve(res.statusCode === 200 && body === ProbeValue.queue));
        res.on("error", () => resolve(false));
      },
    );
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
  });
}

/**
 * One local "pod": the user's command and a queue-proxy in front of it (`thaw-queue-proxy`, or the
 * Knative-compatible one `spec.queueProxy` names), each in its own process group. Its ports are picked before
 * it starts and passed through Knative's env vars; it is ready once the queue-proxy answers the
 * `K-Network-Probe: queue` probe on its serving port (the probe kubelet runs in a cluster), and its stats
 * are the protobuf Stat on its metrics port. Nothing is read from the queue-proxy's output.
 */
export class LocalPod {
  readonly name: string;
  /** Its number among the revision's pods, when the spec numbers them. */
  readonly replica: number | undefined;
  readonly startedAt: number;
  #o: LocalPodOptions;
  #app: GroupChild | undefined;
  #qp: GroupChild | undefined;
  #ports: PodPorts | undefined;
  /** The ports picked for this pod, lent until both its containers have exited. */
  #lent: LentPorts | undefined;
  #ready = false;
  #stopping = false;
  #gone = false;
  #probeTimer: NodeJS.Timeout | undefined;
  #everReady = false;
  /** The spec's readiness gate passed (or there is none). */
  #gateOpen: boolean;
  /** The app's last output lines (what a crash report shows). */
  #tail: string[] = [];
  #appExit: number | string | undefined;
  /** The queue-proxy's last output lines and exit, kept for when it ends first. */
  #qpTail: string[] = [];
  #qpExit: number | string | undefined;
  /** Which container ended on its own first (the other was then stopped by the pod). */
  #firstDied: "app" | "queue-proxy" | undefined;
  #portProblem: PodProblem | undefined;
  #portCheckedAt = 0;

  constructor(options: LocalPodOptions) {
    this.#o = options;
    this.name = options.name;
    this.replica = options.replica;
    this.#gateOpen = options.spec.readinessGate === undefined;
    this.startedAt = options.now();
  }

  /** True once the queue probe passed and until the pod stops or fails it. */
  get ready(): boolean {
    return this.#ready && !this.#stopping && !this.#gone;
  }

  /** True once both containers are gone. */
  get gone(): boolean {
    return this.#gone;
  }

  /** True when a container exited on its own (not through `stop`): the pod is to be replaced. */
  get died(): boolean {
    return this.#firstDied !== undefined;
  }

  /**
   * Whether this pod's replica number is still its own: until its app process has exited. For a container
   * that process is the only one that stops it, so once it ended on its own (the container was killed), a
   * new pod may take the number and start the same container while this one still winds down.
   */
  get holdsReplica(): boolean {
    return !this.#gone && this.#firstDied !== "app";
  }

  /**
   * Why this pod is not serving, if it can be told: its app exited before it was ready (code, last output),
   * or runs without listening on its port. Undefined once it was ready.
   */
  get problem(): PodProblem | undefined {
    if (this.#everReady) return undefined;
    if (this.#firstDied === "app" && this.#appExit !== undefined) {
      return exitProblem(this.#appExit, this.#o.spec.command, this.#tail);
    }
    if (this.#firstDied === "queue-proxy" && this.#qpExit !== undefined) {
      return queueProxyExitProblem(this.#qpExit, this.#qpTail);
    }
    return this.#stopping ? undefined : this.#portProblem;
  }

  /** How the pod ended, when a container of it ended on its own after the pod was ready (to be reported). */
  get death(): PodProblem | undefined {
    if (!this.#everReady || this.#firstDied === undefined) return undefined;
    const app = this.#firstDied === "app";
    const exit = app ? this.#appExit : this.#qpExit;
    if (exit === undefined) return undefined;
    return diedProblem(this.name, app ? "app" : "queue-proxy", exit, app ? this.#tail : this.#qpTail);
  }

  /** True while a readiness gate of the spec has not passed yet: its address is for the scaler only. */
  get held(): boolean {
    return !this.#gateOpen;
  }

  /** True once the pod passed its readiness check at least once. */
  get everReady(): boolean {
    return this.#everReady;
  }

  /** True after `stop` was called. */
  get stopping(): boolean {
    return this.#stopping;
  }

  /** The queue-proxy's serving `host:port`, once known. */
  get address(): string | undefined {
    return this.#ports ? `127.0.0.1:${this.#ports.serving}` : undefined;
  }

  /** The queue-proxy's protobuf Stat URL, once known. */
  get metricsUrl(): string | undefined {
    return this.#ports ? `http://127.0.0.1:${this.#ports.metrics}/metrics` : undefined;
  }

  /** Process ids of both containers' groups (tests check none is left). */
  get pids(): number[] {
    return [this.#app?.pid, this.#qp?.pid].filter((p): p is number => typeof p === "number" && p > 0);
  }

  /** Starts both containers; resolves once they were spawned (readiness follows through `onChange`). */
  async start(): Promise<void> {
    const { spec, name, replica } = this.#o;
    this.#lent = await lendPorts(5);
    const [user, serving, servingTls, admin, metrics] = this.#lent.ports;
    const knative = spec.queueProxy;
    const numbered = spec.replicas && replica !== undefined ? spec.replicas : undefined;
    const ports: PodPorts = {
      user: spec.userPort ?? numbered?.userPort(replica as number) ?? (user as number),
      serving: spec.servingPort ?? (serving as number),
      servingTls: servingTls as number,
      admin: knative?.adminPort ?? (admin as number),
      metrics: knative?.metricsPort ?? (metrics as number),
    };
    const qpEnv = queueProxyEnv(spec, name, ports);
    if (!qpEnv.ok) {
      this.#lent.giveBack();
      throw new Error(`pod ${name}: ${qpEnv.error}`);
    }
    const onQpLine = (line: string) => {
      keepTail(this.#qpTail, line);
      this.#o.onLine?.("queue-proxy", line);
    };
    // The app first: its start-up is the cold start's long pole, and waking the spare queue-proxy (which
    // then binds its ports and starts probing) may hand it this CPU for a few ms. The spare (Thaw's
    // queue-proxy only) gets the same env laid over the same base.
    const appEnv = userAppEnv(spec, name, ports.user, this.#o.baseEnv);
    if (numbered) appEnv[numbered.env] = String(replica);
    this.#app = this.#launchApp(appEnv);
    const runner = spec.queueProxyRunner;
    this.#qp = runner
      ? spawnGroup(runner.command, {
          env: {
            ...this.#o.baseEnv,
            ...runner.env,
            ...(numbered ? { [numbered.env]: String(replica) } : {}),
            [QUEUE_PROXY_RUNNER_ENV.env]: JSON.stringify(qpEnv.env),
            // Kubernetes' grace period: the quiet period and the longest request (the pod SIGKILLs its
            // runner 5 s later, so the engine's kill comes first and the container is still removed).
            [QUEUE_PROXY_RUNNER_ENV.stopTimeout]: String(
              Math.ceil(spec.drainQuietPeriodMs / 1000) + spec.timeoutSeconds,
            ),
          },
          onLine: (_s, line) => onQpLine(line),
        })
      : ((knative ? undefined : this.#o.spare?.take(JSON.stringify(qpEnv.env), onQpLine)) ??
        spawnGroup(knative?.command ?? this.#o.queueProxyCommand, {
          env: { ...(knative ? withoutThawPortVars(this.#o.baseEnv) : this.#o.baseEnv), ...qpEnv.env },
          onLine: (_s, line) => onQpLine(line),
        }));
    this.#ports = ports;
    // If this process dies without stopping the pod (SIGKILL, a crash), the reaper kills both groups.
    this.#o.reaper.add(this.pids);
    const [app, qp] = [this.#app, this.#qp];
    void app.exited.then((code) => {
      this.#appExit = code;
      this.#childExited("app");
    });
    void qp.exited.then((code) => {
      this.#qpExit = code;
      this.#childExited("queue-proxy");
    });
    // Probed from the start at the starting period, as kubelet does with Knative's aggressive probing.
    this.#scheduleProbe(this.#o.startProbeMs ?? 50);
  }

  /** The app through a waiting launcher when its environment can be set from a shell, else spawned. */
  #launchApp(env: Record<string, string | undefined>): GroupChild {
    const { spec, launcher } = this.#o;
    const onLine = (line: string) => {
      keepTail(this.#tail, line);
      this.#o.onLine?.("app", line);
    };
    const script = launcher && launchScript(launcher.env, env, spec.command, spec.cwd, launcher.end);
    const launched = script ? launcher?.spare.take(script, onLine) : undefined;
    return (
      launched ??
      spawnGroup(spec.command, {
        env,
        ...(spec.cwd ? { cwd: spec.cwd } : {}),
        onLine: (_s, line) => onLine(line),
      })
    );
  }

  #scheduleProbe(delayMs: number): void {
    this.#probeTimer = setTimeout(() => void this.#probe(), delayMs);
  }

  async #probe(): Promise<void> {
    if (this.#stopping || this.#gone || !this.#ports) return;
    let ok = await queueProbe(this.#ports.serving, this.#ready ? 1000 : 300);
    if (ok && !this.#gateOpen) {
      ok = (await this.#o.spec.readinessGate?.(this.replica ?? 1)) ?? true;
      // Told apart from readiness: the pod's address is handed out from now on (see `held`).
      if (ok) this.#gateOpen = true;
    }
    if (this.#stopping || this.#gone) return;
    if (ok && !this.#everReady) {
      this.#everReady = true;
      this.#portProblem = undefined;
    }
    if (ok !== this.#ready) {
      this.#ready = ok;
      this.#o.onChange();
    } else if (!ok && !this.#everReady) await this.#checkPort();
    this.#scheduleProbe(ok ? (this.#o.readyProbeMs ?? 1000) : (this.#o.startProbeMs ?? 50));
  }

  /**
   * While the pod has never been ready: once a second from 2 s after the start, which ports its app listens
   * on, so "listens on 8099, not on $PORT" is said at once instead of after the request's timeout.
   */
  async #checkPort(): Promise<void> {
    const now = this.#o.now();
    const app = this.#app;
    const ports = this.#ports;
    if (!app?.alive || !ports || now - this.startedAt < 2000 || now - this.#portCheckedAt < 1000) return;
    // Numbered replicas are containers: the app listens inside one, not in the process this pod started.
    if (this.#o.spec.replicas) return;
    this.#portCheckedAt = now;
    const listening = await listeningPorts(app.pid);
    if (listening === undefined || this.#everReady || this.#stopping || this.#gone) return;
    const problem = portProblem(this.#o.spec.portEnv, ports.user, listening);
    if (problem?.message !== this.#portProblem?.message) {
      this.#portProblem = problem;
      this.#o.onChange();
    }
  }

  #childExited(which: "app" | "queue-proxy"): void {
    const appGone = !this.#app?.alive;
    const qpGone = !this.#qp?.alive;
    const wasReady = this.ready;
    if (!this.#stopping) {
      // A container died on its own: the pod is unusable, stop what is left.
      this.#firstDied = which;
      void this.stop();
    }
    if (appGone && qpGone && !this.#gone) {
      this.#gone = true;
      this.#lent?.giveBack();
      this.#o.reaper.remove(this.pids);
      if (this.#probeTimer) clearTimeout(this.#probeTimer);
      this.#o.onChange();
    } else if (wasReady !== this.ready) this.#o.onChange();
  }

  /**
   * Stops the pod as Kubernetes does with Knative's preStop: SIGTERM the queue-proxy (it drains: finishes
   * accepted requests, then exits), then SIGTERM the app; SIGKILL whatever outlives `killAfterMs`.
   */
  async stop(): Promise<void> {
    const first = !this.#stopping;
    this.#stopping = true;
    if (this.#probeTimer) clearTimeout(this.#probeTimer);
    if (first) this.#o.onChange();
    const { killAfterMs } = this.#o;
    const qp = this.#qp;
    const app = this.#app;
    if (qp?.alive) {
      qp.signal("SIGTERM");
      await within(qp.exited, killAfterMs, () => qp.signal("SIGKILL"));
    }
    if (app?.alive) {
      app.signal("SIGTERM");
      await within(app.exited, killAfterMs, () => app.signal("SIGKILL"));
    }
    await Promise.all([qp?.exited, app?.exited]);
  }
}

/** Waits for `p`; after `ms` calls `onTimeout` and keeps waiting. */
async function within(p: Promise<unknown>, ms: number, onTimeout: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  const r = await Promise.race([p, timeout]);
  clearTimeout(timer);
  if (r === "timeout") {
    onTimeout();
    await p;
  }
}

/** thaw-queue-proxy's own port variables: in Knative mode the ports come from Knative's variables only. */
const THAW_PORT_VARS = new Set(["THAW_ADMIN_PORT", "THAW_METRICS_PORT", "THAW_USER_METRICS_PORT"]);

/** `env` without {@link THAW_PORT_VARS}, so an inherited one cannot move a port behind the scaler's back. */
function withoutThawPortVars(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !THAW_PORT_VARS.has(k)));
}
