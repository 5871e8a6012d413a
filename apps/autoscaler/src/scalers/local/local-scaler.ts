import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { SPARE_ENV, SPARE_WAITING_LINE } from "@thaw/queue-proxy/spare";
import { type Logger, silentLogger } from "../../logger.js";
import { keyOf, type RevisionKey } from "../../revision.js";
import type { PodInfo, Scaler } from "../scaler.js";
import { killGroupsOnExit } from "./child.js";
import { type AppLauncher, LocalPod } from "./local-pod.js";
import { KNATIVE_DRAIN_QUIET_PERIOD_MS, type LocalServiceSpec } from "./pod-env.js";
import { type PodProblem, type RevisionProblem, withBackoff } from "./pod-problem.js";
import { Reaper } from "./reaper.js";
import { Spare } from "./spare.js";
import { launcherCommand } from "./spare-launcher.js";

/** Options of {@link LocalScaler}. */
export interface LocalScalerOptions {
  /** argv that starts a queue-proxy (default: this Node running @thaw/queue-proxy's `thaw-queue-proxy`). */
  queueProxyCommand?: readonly string[];
  /**
   * Keep one queue-proxy started ahead of the next pod (spare mode, apps/queue-proxy/README.md). Default:
   * on with the default command, off with a `queueProxyCommand` (which may not know spare mode).
   */
  spareQueueProxy?: boolean;
  /**
   * Keep one `/bin/sh` waiting to exec the next pod's app (spare-launcher.ts), so a cold start does not fork
   * this process. Default on.
   */
  spareLauncher?: boolean;
  /** How long after a pod turned ready (or went away) the next spares start (default 50 ms). */
  spareDelayMs?: number;
  /** Environment the pods inherit (default process.env). */
  baseEnv?: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
  /** Every output line of every pod. */
  onPodOutput?: (rev: RevisionKey, pod: string, container: "queue-proxy" | "app", line: string) => void;
  /** Queue-probe period while a pod starts (default 50 ms, Knative's aggressive probing). */
  startProbeMs?: number;
  /**
   * Delay before replacing a pod that died on its own (default 1 s); doubled for each pod in a row that died
   * before it was ever ready (a crash loop), up to `maxRestartDelayMs`.
   */
  restartDelayMs?: number;
  /** Longest crash-loop back-off (default 30 s). */
  maxRestartDelayMs?: number;
  /** Why a revision's pods are not serving, when that changes (undefined: nothing to say any more). */
  onProblem?: (rev: RevisionKey, problem: RevisionProblem | undefined) => void;
  now?: () => number;
}

interface LocalRevision {
  spec: LocalServiceSpec;
  desired: number;
  pods: LocalPod[];
  listeners: Set<(pods: PodInfo[]) => void>;
  restartTimer: NodeJS.Timeout | undefined;
  restartAt: number | undefined;
  /** Pods in a row that died before they were ever ready; 0 once one is ready. */
  crashes: number;
  counted: WeakSet<LocalPod>;
  /** The pause before the pending restart (ms). */
  backoffMs: number;
  base: PodProblem | undefined;
  problem: RevisionProblem | undefined;
  /** The last pod that ended on its own after it was ready, until a pod is ready again. */
  death: PodProblem | undefined;
}

/** argv of the queue-proxy that ships with Thaw. */
export function defaultQueueProxyCommand(): string[] {
  const require = createRequire(import.meta.url);
  const entry = require.resolve("@thaw/queue-proxy");
  return [process.execPath, join(dirname(entry), "main.js")];
}

/**
 * The embedded scaler of `thaw up`: each replica is a pair of local processes (the service's `run.command`
 * behind a real `thaw-queue-proxy`), kept at the asked count like a ReplicaSet, stopped with SIGTERM and a
 * drain. Every child is a process-group leader and is killed if this process exits without stopping them.
 */
export class LocalScaler implements Scaler {
  readonly #o: LocalScalerOptions & { logger: Logger; now: () => number; restartDelayMs: number };
  readonly #revs = new Map<string, LocalRevision>();
  #queueProxyCommand: readonly string[] | undefined;
  #spare: Spare | undefined;
  #launcher: AppLauncher | undefined;
  readonly #reaper = new Reaper();
  /** Some revision runs Thaw's queue-proxy, so a spare one is worth keeping. */
  #thawQueueProxy = false;
  #spareTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: LocalScalerOptions = {}) {
    this.#o = { logger: silentLogger, now: Date.now, restartDelayMs: 1000, ...options };
    killGroupsOnExit();
  }

  /** The spare queue-proxy, when spare mode is on (tests and the benchmark read `taken` and `pid`). */
  get spare(): Spare | undefined {
    return this.#spare;
  }

  /** Resolves once the spares are warm and waiting (at once when there are none): the next cold start is fast. */
  sparesWaiting(): Promise<void> {
    return Promise.all([this.#spare?.waiting(), this.#launcher?.spare.waiting()]).then(() => {});
  }

  /** The spare app launcher, when on (tests read `taken` and `pid`). */
  get spareLauncher(): Spare | undefined {
    return this.#launcher?.spare;
  }

  /** Declares a revision this scaler runs (before `scale`). */
  register(spec: LocalServiceSpec): void {
    const key = keyOf(spec);
    if (this.#revs.has(key)) throw new Error(`revision ${key} is already registered`);
    this.#revs.set(key, {
      spec,
      desired: 0,
      pods: [],
      listeners: new Set(),
      restartTimer: undefined,
      restartAt: undefined,
      crashes: 0,
      counted: new WeakSet(),
      backoffMs: 0,
      base: undefined,
      problem: undefined,
      death: undefined,
    });
    // The first spares (and the reaper) start with the first revision, before any request: nothing else
    // runs yet.
    if (!spec.queueProxy && !spec.queueProxyRunner) this.#thawQueueProxy = true;
    this.#reaper.start();
    this.#warmSpare();
  }

  #warmSpareSoon(): void {
    if (this.#spareTimer || this.#closed) return;
    this.#spareTimer = setTimeout(() => {
      this.#spareTimer = undefined;
      this.#warmSpare();
    }, this.#o.spareDelayMs ?? 50);
    this.#spareTimer.unref();
  }

  /** Starts the spare launcher, and the spare queue-proxy when a revision runs Thaw's own. */
  #warmSpare(): void {
    if (this.#closed) return;
    this.#warmLauncher();
    if (!this.#thawQueueProxy) return;
    if (!this.#spare) {
      const custom = this.#o.queueProxyCommand !== undefined;
      if (!(this.#o.spareQueueProxy ?? !custom)) return;
      this.#queueProxyCommand ??= this.#o.queueProxyCommand ?? defaultQueueProxyCommand();
      this.#spare = new Spare({
        what: "spare queue-proxy",
        command: this.#queueProxyCommand,
        env: { ...(this.#o.baseEnv ?? process.env), [SPARE_ENV]: "1" },
        waitingLine: SPARE_WAITING_LINE,
        logger: this.#o.logger,
        restartDelayMs: this.#o.restartDelayMs,
      });
    }
    this.#spare.warm();
  }

  #warmLauncher(): void {
    if (!this.#launcher) {
      if (!(this.#o.spareLauncher ?? true)) return;
      const env = { ...(this.#o.baseEnv ?? process.env) };
      const end = `thaw-launch-${randomBytes(8).toString("hex")}`;
      this.#launcher = {
        env,
        end,
        spare: new Spare({
          what: "spare app launcher",
          command: launcherCommand(end),
          env,
          logger: this.#o.logger,
          restartDelayMs: this.#o.restartDelayMs,
        }),
      };
    }
    this.#launcher.spare.warm();
  }

  async scale(rev: RevisionKey, desired: number): Promise<void> {
    const r = this.#get(rev);
    if (this.#closed) return;
    r.desired = Math.max(0, Math.floor(desired));
    // Scaled to zero, the crash loop is over: the next start from zero is a fresh one.
    if (r.desired === 0) r.crashes = 0;
    const fixed = fixedPorts(r.spec);
    if (fixed && r.desired > 1) {
      // Two queue-proxies cannot bind one port: a service with fixed ports runs one pod.
      this.#o.logger.warn("one pod at most: the service's queue-proxy binds fixed ports", {
        revision: keyOf(rev),
        desired: r.desired,
        ...fixed,
      });
      r.desired = 1;
    }
    await this.#converge(r);
  }

  /** Why the revision has no ready pod, if that can be told. */
  problem(rev: RevisionKey): RevisionProblem | undefined {
    return this.#revs.get(keyOf(rev))?.problem;
  }

  pods(rev: RevisionKey): PodInfo[] {
    const r = this.#revs.get(keyOf(rev));
    return r ? infos(r) : [];
  }

  subscribe(rev: RevisionKey, onChange: (pods: PodInfo[]) => void): () => void {
    const r = this.#get(rev);
    r.listeners.add(onChange);
    return () => r.listeners.delete(onChange);
  }

  /** Serving addresses of every pod of every revision that is not stopping: connections elsewhere can go. */
  allAddresses(): string[] {
    return [...this.#revs.values()].flatMap((r) => infos(r).map((p) => p.address));
  }

  /** Pids of every live container, for tests and shutdown checks. */
  pids(): number[] {
    return [...this.#revs.values()].flatMap((r) => r.pods.flatMap((p) => p.pids));
  }

  /** Stops every pod (drained, SIGTERM then SIGKILL after the grace) and refuses further scaling. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#spareTimer) clearTimeout(this.#spareTimer);
    const all: Promise<void>[] = [
      this.#spare?.close() ?? Promise.resolve(),
      this.#launcher?.spare.close() ?? Promise.resolve(),
    ];
    for (const r of this.#revs.values()) {
      if (r.restartTimer) clearTimeout(r.restartTimer);
      r.desired = 0;
      for (const p of r.pods) all.push(p.stop());
    }
    await Promise.all(all);
    this.#reaper.dismiss();
  }

  #get(rev: RevisionKey): LocalRevision {
    const r = this.#revs.get(keyOf(rev));
    if (!r) throw new Error(`revision ${keyOf(rev)} is not registered with the local scaler`);
    return r;
  }

  async #converge(r: LocalRevision): Promise<void> {
    const live = r.pods.filter((p) => !p.stopping && !p.gone);
    const starts: Promise<void>[] = [];
    for (let i = live.length; i < r.desired; i++) starts.push(this.#startPod(r));
    if (live.length > r.desired) {
      // Not-ready pods go first, then the newest: the oldest pods hold the warmest state.
      const victims = [...live]
        .sort((a, b) => Number(a.ready) - Number(b.ready) || b.startedAt - a.startedAt)
        .slice(0, live.length - r.desired);
      for (const p of victims) void p.stop();
    }
    await Promise.all(starts);
  }

  async #startPod(r: LocalRevision): Promise<void> {
    const name = `${r.spec.name}-${randomBytes(3).toString("hex")}`;
    const rev = { namespace: r.spec.namespace, name: r.spec.name };
    this.#queueProxyCommand ??= this.#o.queueProxyCommand ?? defaultQueueProxyCommand();
    let replica: number | undefined;
    if (r.spec.replicas) {
      // A pod whose container was killed gives its number up at once: its replacement restarts that same
      // container (web1 again, not a copy web1-2 beside a stopped web1).
      const held = new Set(r.pods.filter((p) => p.holdsReplica).map((p) => p.replica));
      replica = 1;
      while (held.has(replica)) replica++;
    }
    const pod = new LocalPod({
      spec: r.spec,
      name,
      ...(replica !== undefined ? { replica } : {}),
      queueProxyCommand: this.#queueProxyCommand,
      ...(this.#spare && !r.spec.queueProxy && !r.spec.queueProxyRunner ? { spare: this.#spare } : {}),
      ...(this.#launcher ? { launcher: this.#launcher } : {}),
      reaper: this.#reaper,
      baseEnv: this.#o.baseEnv ?? process.env,
      ...(this.#o.onPodOutput ? { onLine: (c, line) => this.#o.onPodOutput?.(rev, name, c, line) } : {}),
      onChange: () => this.#podChanged(r, pod),
      ...(this.#o.startProbeMs !== undefined ? { startProbeMs: this.#o.startProbeMs } : {}),
      // Drain quiet period plus the longest request, plus a margin: Kubernetes' terminationGracePeriod.
      // A queue-proxy of the user's choosing is not told the quiet period: Knative's fixed 30 s applies.
      killAfterMs:
        (r.spec.queueProxy ? KNATIVE_DRAIN_QUIET_PERIOD_MS : r.spec.drainQuietPeriodMs) +
        r.spec.timeoutSeconds * 1000 +
        5000,
      now: this.#o.now,
    });
    r.pods.push(pod);
    try {
      await pod.start();
    } catch (err) {
      this.#o.logger.error("pod failed to start", { revision: keyOf(rev), pod: name, error: String(err) });
      await pod.stop();
    }
    this.#notify(r);
  }

  #podChanged(r: LocalRevision, pod: LocalPod): void {
    if (pod.gone) r.pods = r.pods.filter((p) => p !== pod);
    // Reported once it is gone (its last lines read); told until a pod is ready again.
    if (pod.gone) r.death = pod.death ?? r.death;
    if (pod.ready) {
      r.crashes = 0;
      r.death = undefined;
    } else if (pod.died && !pod.everReady && !r.counted.has(pod)) {
      r.counted.add(pod);
      r.crashes++;
    }
    // The next spare starts just after this pod is ready (or gone): spawning blocks this event loop for a
    // few ms, which the cold start's first requests, sent the moment the pod is ready, must not wait for.
    if (pod.ready || pod.gone) this.#warmSpareSoon();
    // A pod whose container died is replaced at once, not after its remains have drained.
    if (pod.gone || pod.died) {
      const live = r.pods.filter((p) => !p.stopping && !p.gone).length;
      if (!this.#closed && live < r.desired && !r.restartTimer) {
        // Like a ReplicaSet: replace a pod that died on its own, after a pause that doubles with each pod in
        // a row that never got ready, so a crash loop stays slow (kubelet's CrashLoopBackOff, shorter).
        const delay = Math.min(
          this.#o.restartDelayMs * 2 ** Math.max(0, r.crashes - 1),
          this.#o.maxRestartDelayMs ?? 30_000,
        );
        r.backoffMs = delay;
        r.restartAt = this.#o.now() + delay;
        r.restartTimer = setTimeout(() => {
          r.restartTimer = undefined;
          r.restartAt = undefined;
          void this.#converge(r);
        }, delay);
      }
    }
    this.#updateProblem(r, pod);
    this.#notify(r);
  }

  /**
   * Recomputes what is wrong with the revision after `pod` changed, and says so when it changed: what a pod
   * shows now (an exit before ready, a wrong port), else, while pods keep dying, the last crash; else a pod
   * that ended on its own after it served, until a pod is ready again.
   */
  #updateProblem(r: LocalRevision, pod: LocalPod): void {
    const live = r.pods.filter((p) => !p.stopping && !p.gone);
    let base: PodProblem | undefined;
    // Failing only when no pod is still starting without a problem: one pod of a burst that ends before
    // it is ready is replaced, while its siblings may well come up (the app is not known to be broken).
    // A crash loop keeps its report while the next pods start.
    const starting = live.some((p) => p !== pod && p.problem === undefined);
    if (!live.some((p) => p.ready) && r.desired > 0) {
      if (!starting) base = pod.problem ?? live.map((p) => p.problem).find((p) => p !== undefined);
      if (!base && r.crashes > 0) base = r.base;
    }
    r.base = base;
    if (r.desired === 0) r.death = undefined;
    // A pod that served and ended on its own is said even while others serve: someone stopped it.
    base ??= r.death;
    const waitMs = r.restartAt === undefined ? undefined : Math.max(0, r.restartAt - this.#o.now());
    const next = base ? withBackoff(base, r.crashes, r.backoffMs, waitMs) : undefined;
    if (r.problem?.message === next?.message) {
      r.problem = next;
      return;
    }
    r.problem = next;
    this.#o.onProblem?.({ namespace: r.spec.namespace, name: r.spec.name }, next);
  }

  #notify(r: LocalRevision): void {
    const pods = infos(r);
    for (const l of r.listeners) l(pods);
  }
}

/** The ports a pod of `spec` always binds, if any: then two of its pods cannot share this machine. */
function fixedPorts(spec: LocalServiceSpec): Record<string, number> | undefined {
  const out: Record<string, number> = {};
  if (spec.servingPort !== undefined) out.servingPort = spec.servingPort;
  if (spec.userPort !== undefined) out.userPort = spec.userPort;
  if (spec.queueProxy) {
    out.adminPort = spec.queueProxy.adminPort;
    out.metricsPort = spec.queueProxy.metricsPort;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function infos(r: LocalRevision): PodInfo[] {
  const out: PodInfo[] = [];
  for (const p of r.pods) {
    if (p.gone || p.stopping || !p.address) continue;
    const info: PodInfo = { name: p.name, address: p.address, ready: p.ready, startedAt: p.startedAt };
    if (p.held) info.held = true;
    const m = p.metricsUrl;
    if (m) info.metricsUrl = m;
    out.push(info);
  }
  return out;
}
