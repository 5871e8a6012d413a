import type { Clock } from "@thaw/clock";
import { runProbeAttempt } from "./attempt.js";
import { type ProbeError, ProbeErrorCode } from "./errors.js";
import type { HttpProbeMode } from "./http-probe.js";
import type { ProbeTransport } from "./transport.js";
import type { Probe } from "./types.js";

/** Knative's aggressive-mode timing (`periodSeconds: 0`); tests may shorten it. */
export interface AggressiveTiming {
  /** Time between attempt starts (50 ms). */
  intervalMs: number;
  /** Timeout of each attempt (100 ms). */
  attemptTimeoutMs: number;
  /** Give up after this long (10 s). */
  maxDurationMs: number;
  /**
   * Longest pause after an attempt that could not connect (nothing listens yet); 0 (Knative's behaviour)
   * waits `intervalMs` after every failure. Otherwise the pause is 1 ms for every
   * {@link REFUSED_MS_PER_RETRY_MS} ms the app has refused so far (at least 1 ms, at most this and
   * `intervalMs`): an app is seen within about 0.25 % of its own start-up after its `listen()`, and one
   * that starts slowly is polled ever less often. A refused connect costs the app nothing; an app that
   * answered (any status) or timed out is still polled every `intervalMs`.
   */
  connectRetryMaxMs: number;
}

/** After refused connects, 1 ms of pause per this many ms of refusals so far (see `connectRetryMaxMs`). */
export const REFUSED_MS_PER_RETRY_MS = 400;

/** Knative's numbers: attempt every 50 ms, 100 ms each, for at most 10 s; no faster connect retries. */
export const AGGRESSIVE_TIMING: AggressiveTiming = {
  intervalMs: 50,
  attemptTimeoutMs: 100,
  maxDurationMs: 10_000,
  connectRetryMaxMs: 0,
};

/** Everything a {@link Prober} runs with. */
export interface ProberOptions {
  /** The probes to run, as the queue-proxy decoded them (ports already numeric). */
  probes: readonly Probe[];
  transport: ProbeTransport;
  clock: Clock;
  /** Receives the one summary line of a failed aggressive run. */
  log?: (line: string) => void;
  /** Knative's `autodetect-http2` feature: h2c first, then HTTP/1.1, on every attempt. */
  http2AutoDetect?: boolean;
  /** Overrides of the aggressive-mode timing. */
  aggressive?: Partial<AggressiveTiming>;
  /** Stops every run for good (shutdown): attempts abort, polling ends, `probe()` answers false. */
  signal?: AbortSignal;
}

/** Normal-mode attempts with `timeoutSeconds: 0` get Kubernetes' default of 1 s, so none runs unbounded. */
const DEFAULT_TIMEOUT_MS = 1000;

/**
 * Runs a container's readiness probes the way Knative's queue-proxy does (knative-spec.md b.4). All probes
 * run concurrently and the container is ready only when every one succeeds. A probe with
 * `periodSeconds > 0` gets exactly one attempt; one with `periodSeconds: 0` is polled aggressively until
 * `successThreshold` consecutive successes. Callers arriving while a run is in flight share its result.
 */
export class Prober {
  readonly #probes: readonly Probe[];
  readonly #options: ProberOptions;
  readonly #timing: AggressiveTiming;
  readonly #httpMode: HttpProbeMode;
  /** Consecutive successes per probe; kept across runs so a satisfied threshold stays satisfied. */
  readonly #consecutive: number[];
  #inflight: Promise<boolean> | undefined;

  constructor(options: ProberOptions) {
    if (options.probes.length === 0) throw new RangeError("Prober needs at least one probe");
    this.#probes = options.probes;
    this.#options = options;
    this.#timing = { ...AGGRESSIVE_TIMING, ...options.aggressive };
    this.#httpMode = options.http2AutoDetect ? "auto" : "http1";
    this.#consecutive = options.probes.map(() => 0);
  }

  /** Runs every probe (or joins the run in flight); true when all of them succeeded. */
  probe(): Promise<boolean> {
    if (!this.#inflight) {
      this.#inflight = this.#runAll().finally(() => {
        this.#inflight = undefined;
      });
    }
    return this.#inflight;
  }

  /** The consecutive-success counter of probe `index` (aggressive mode only). */
  consecutiveSuccesses(index = 0): number {
    return this.#consecutive[index] ?? 0;
  }

  /** True when at least one probe runs in aggressive mode. */
  get aggressive(): boolean {
    return this.#probes.some((p) => !p.periodSeconds);
  }

  async #runAll(): Promise<boolean> {
    const results = await Promise.all(this.#probes.map((p, i) => this.#runOne(p, i)));
    return results.every(Boolean);
  }

  #runOne(probe: Probe, index: number): Promise<boolean> {
    // exec and handler-less probes can never pass, so they fail at once instead of polling for 10 s.
    const runnable = probe.httpGet || probe.tcpSocket || probe.grpc;
    if (probe.periodSeconds || !runnable) return this.#once(probe);
    return this.#poll(probe, index);
  }

  async #once(probe: Probe): Promise<boolean> {
    const timeoutMs = probe.timeoutSeconds ? probe.timeoutSeconds * 1000 : DEFAULT_TIMEOUT_MS;
    const r = await runProbeAttempt(probe, this.#attemptOptions(timeoutMs));
    return r.ok;
  }

  /**
   * Aggressive mode: attempts start at once and then every interval, measured between planned starts
   * (not from the end of the previous attempt), so detection comes at most one interval after readiness.
   * With `connectRetryMaxMs`, an attempt that could not connect is retried sooner: after 1 ms per
   * {@link REFUSED_MS_PER_RETRY_MS} ms of refusals in a row, at least 1 ms, at most the cap.
   */
  async #poll(probe: Probe, index: number): Promise<boolean> {
    const { clock } = this.#options;
    const { intervalMs, attemptTimeoutMs, maxDurationMs, connectRetryMaxMs } = this.#timing;
    const threshold = Math.max(1, probe.successThreshold ?? 1);
    const deadline = clock.now() + maxDurationMs;
    let failures = 0;
    let lastError: ProbeError | undefined;
    // The planned start of the current attempt. Plans advance by exactly one interval, so a timer that
    // fires late does not push every later attempt back; an attempt that overran starts the next at once.
    let slot = clock.now();
    // When the current run of refused connects began (undefined once the app answered or timed out).
    let refusedSince: number | undefined;
    // Bounded: every pass waits until the next planned start, and the loop stops at the deadline.
    const signal = this.#options.signal;
    for (;;) {
      if (signal?.aborted) return false;
      const r = await runProbeAttempt(probe, this.#attemptOptions(attemptTimeoutMs));
      let next = intervalMs;
      if (r.ok) {
        this.#consecutive[index] = (this.#consecutive[index] ?? 0) + 1;
        if ((this.#consecutive[index] ?? 0) >= threshold) return true;
      } else {
        this.#consecutive[index] = 0;
        failures++;
        lastError = r.error;
        if (connectRetryMaxMs > 0 && r.error.code === ProbeErrorCode.Connect) {
          const now = clock.now();
          refusedSince ??= now;
          const pause = Math.max(1, (now - refusedSince) / REFUSED_MS_PER_RETRY_MS);
          next = Math.min(pause, connectRetryMaxMs, intervalMs);
        }
      }
      if (r.ok || r.error.code !== ProbeErrorCode.Connect) refusedSince = undefined;
      // A connect retry is timed from now: nothing was listening, so there is no interval plan to keep.
      slot = next < intervalMs ? clock.now() + next : Math.max(slot + intervalMs, clock.now());
      if (slot >= deadline) break;
      const wait = slot - clock.now();
      if (wait > 0) {
        const slept = await clock.sleep(wait, signal).then(
          () => true,
          () => false,
        );
        if (!slept) return false;
      }
    }
    const why = lastError?.message ?? `fewer than ${threshold} consecutive successes in ${maxDurationMs}ms`;
    this.#options.log?.(`aggressive probe error (failed ${failures} times): ${why}`);
    return false;
  }

  #attemptOptions(timeoutMs: number) {
    const { transport, clock, signal } = this.#options;
    return { transport, clock, timeoutMs, httpMode: this.#httpMode, ...(signal ? { signal } : {}) };
  }
}

/** Builds a {@link Prober}. */
export function createProber(options: ProberOptions): Prober {
  return new Prober(options);
}
