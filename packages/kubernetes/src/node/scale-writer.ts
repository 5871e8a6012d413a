import { AppsV1Api, type KubeConfig, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import type { Clock, TimerHandle } from "@thaw/clock";
import { Backoff } from "../backoff.js";
import { apiFailure } from "./api-error.js";
import { type Logger, silentLogger } from "./logger.js";

/** Options of {@link ScaleWriter}. */
export interface ScaleWriterOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  deployment: string;
  clock: Clock;
  random: () => number;
  logger?: Logger;
  /** Compare desired with the Deployment this often while nothing fails (default 2 s, the decider tick). */
  resyncMs?: number;
  /** First retry delay after a failure (default 500 ms, doubling to 30 s, with jitter). */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /**
   * The Deployment as an informer last saw it (DeploymentReader): with its resourceVersion, a change of
   * count is one PATCH carrying that version instead of GET + PATCH; a stale view gets 409 and the attempt
   * reads the scale back at once. An unchanged count is always read back, and a view whose count differs
   * from the one this writer last read or wrote is not used.
   */
  known?: () => { replicas: number | undefined; resourceVersion: string | undefined } | undefined;
}

/** What the writer knows about one Deployment's scale. */
export interface ScaleWriterStatus {
  /** Replicas asked for; undefined until `want` was called. */
  desired: number | undefined;
  /** `spec.replicas` as the API last answered it (read back or from the PATCH's answer). */
  observed: number | undefined;
  /** The latest failure, until a later attempt succeeds. */
  error: string | undefined;
  /** Failed attempts in a row. */
  failures: number;
}

/**
 * Keeps a Deployment's `spec.replicas` at the desired count through the `scale` subresource. Each attempt
 * reads the scale back, and only when it differs sends a merge patch carrying the resourceVersion it read,
 * so a concurrent writer makes it fail with 409 instead of being overwritten blindly. Failures are retried
 * with backoff (at least the server's Retry-After); the last error is kept for the status API until an
 * attempt succeeds. Nothing counts as applied before the API accepted it. With `known` (an informer's view),
 * a change of count skips the read and patches with the view's version.
 */
export class ScaleWriter {
  readonly #o: ScaleWriterOptions;
  readonly #api: AppsV1Api;
  readonly #backoff: Backoff;
  readonly #log: Logger;
  #desired: number | undefined;
  #observed: number | undefined;
  #error: string | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #timer: TimerHandle | undefined;
  #enabled = true;
  #closed = false;

  constructor(o: ScaleWriterOptions) {
    this.#o = o;
    this.#api = o.kubeConfig.makeApiClient(AppsV1Api);
    this.#backoff = new Backoff({
      random: o.random,
      initialMs: o.backoffInitialMs ?? 500,
      maxMs: o.backoffMaxMs ?? 30_000,
    });
    this.#log = o.logger ?? silentLogger;
  }

  /** The desired and observed counts and the last error. */
  status(): ScaleWriterStatus {
    return {
      desired: this.#desired,
      observed: this.#observed,
      error: this.#error,
      failures: this.#backoff.failures,
    };
  }

  /**
   * Asks for `replicas` and runs one attempt now: resolves once the Deployment has that many in its spec,
   * rejects with that attempt's error (the writer keeps retrying on its own).
   */
  want(replicas: number): Promise<void> {
    if (!Number.isInteger(replicas) || replicas < 0) {
      throw new RangeError(`replicas must be a whole number >= 0, got ${replicas}`);
    }
    this.#desired = replicas;
    return this.#reconcile();
  }

  /** Pauses or resumes writing (a follower of leader election keeps its desired count, writes nothing). */
  setEnabled(on: boolean): void {
    this.#enabled = on;
    if (on && this.#desired !== undefined) void this.#reconcile().catch(() => {});
    if (!on) this.#clearTimer();
  }

  /** Stops retries and resyncs. */
  close(): void {
    this.#closed = true;
    this.#clearTimer();
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(ms: number): void {
    this.#clearTimer();
    if (this.#closed || !this.#enabled) return;
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#timer = undefined;
      void this.#reconcile().catch(() => {});
    }, ms);
  }

  /** One attempt at a time; a call during an attempt runs one more afterwards and shares its outcome. */
  #reconcile(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    const run = (async () => {
      try {
        do {
          this.#again = false;
          await this.#attempt();
        } while (this.#again);
      } finally {
        this.#running = undefined;
      }
    })();
    this.#running = run;
    return run;
  }

  async #attempt(): Promise<void> {
    const desired = this.#desired;
    if (desired === undefined || this.#closed) return;
    if (!this.#enabled) throw new NotLeaderError();
    const { namespace, deployment: name } = this.#o;
    let step = "GET";
    try {
      // A scale from a known version skips the read: on a cold start this is one API round trip less. A
      // view that disagrees with what this writer last saw (its own write not seen back yet) is not used.
      const known = this.#o.known?.();
      const agrees = this.#observed === undefined || known?.replicas === this.#observed;
      if (known?.resourceVersion && known.replicas !== desired && agrees) {
        step = "PATCH";
        if (!(await this.#patch(desired, known.resourceVersion, true))) step = "GET";
      }
      if (step === "GET") {
        const scale = await this.#api.readNamespacedDeploymentScale({ name, namespace });
        this.#observed = scale.spec?.replicas ?? 0;
        if (this.#observed !== desired) {
          step = "PATCH";
          await this.#patch(desired, scale.metadata?.resourceVersion, false);
        }
      }
      this.#error = undefined;
      this.#backoff.reset();
      this.#schedule(this.#o.resyncMs ?? 2000);
    } catch (err) {
      const f = apiFailure(err, `${step} deployments/${name}/scale in ${namespace}`);
      this.#error = f.message;
      const delay = Math.max(this.#backoff.next(), (f.retryAfterSeconds ?? 0) * 1000);
      this.#log.warn("scale failed; retrying", { error: f.message, desired, retryInMs: delay });
      this.#schedule(delay);
      throw new ScaleError(f.message, f.status);
    }
  }

  /**
   * Merge-patches spec.replicas with `resourceVersion` as the precondition. With `staleOk`, a 409 (the
   * version moved on since the informer saw it) resolves false instead of failing the attempt.
   */
  async #patch(desired: number, resourceVersion: string | undefined, staleOk: boolean): Promise<boolean> {
    const { namespace, deployment: name } = this.#o;
    const body = { metadata: { resourceVersion }, spec: { replicas: desired } };
    try {
      const res = await this.#api.patchNamespacedDeploymentScale(
        { name, namespace, body },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
      this.#observed = res.spec?.replicas ?? desired;
    } catch (err) {
      if (staleOk && apiFailure(err, "").status === 409) return false;
      throw err;
    }
    this.#log.info("scaled", { namespace, deployment: name, replicas: this.#observed });
    return true;
  }
}

/** A scale attempt failed; `status` is the HTTP status (0 = no answer). */
export class ScaleError extends Error {
  readonly code = "ERR_SCALE_FAILED";
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "ScaleError";
  }
}

/** This replica does not hold the leader Lease, so it writes no scale. */
export class NotLeaderError extends Error {
  readonly code = "ERR_NOT_LEADER";
  constructor() {
    super("not the leader: another autoscaler replica holds the Lease and writes the scale");
    this.name = "NotLeaderError";
  }
}
