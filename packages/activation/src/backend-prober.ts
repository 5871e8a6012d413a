import type { Clock, TimerHandle } from "@thaw/clock";
import {
  type FetchLike,
  type MeshMode,
  type ProbeRoundResult,
  probeDestination,
  probeRound,
} from "./probe.js";

/** How a revision's backends are probed. */
export interface BackendProberOptions {
  fetch: FetchLike;
  clock: Clock;
  /** Called with the sorted healthy destinations whenever the set changes (empty = no backends). */
  onHealthy: (dests: string[]) => void;
  /** Re-probe period while some destination is not healthy; Knative's 200 ms. */
  intervalMs?: number;
  /** Re-probe period while `setActivating(true)`; default `intervalMs`. */
  activatingIntervalMs?: number;
  /** Deadline per round; Knative's 300 ms. */
  timeoutMs?: number;
  /** Default `auto`: probe every destination, ready or not. */
  meshMode?: MeshMode;
  /** Admit not-ready endpoints that pass the probe; pass false for exec or startup probes. Default true. */
  probeOptimisation?: boolean;
  /** URL scheme of the probe; default `http`. */
  scheme?: string;
  /** Told about each round's failure (logging). */
  onError?: (err: Error) => void;
}

/**
 * Watches one revision's endpoints and keeps its healthy set (d.3): probes on every endpoint change,
 * then every interval while some destination is not healthy; drops an endpoint that goes from ready
 * to not ready and probes it again. `probeNow()` runs a round at once for a fast cold start.
 */
export class BackendProber {
  readonly #o: Required<Omit<BackendProberOptions, "onError" | "activatingIntervalMs">> &
    Pick<BackendProberOptions, "onError" | "activatingIntervalMs">;
  #ready: string[] = [];
  #notReady: string[] = [];
  #healthy = new Set<string>();
  #reported: string[] | undefined;
  #timer: TimerHandle | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #activating = false;
  #stopped = false;

  constructor(opts: BackendProberOptions) {
    this.#o = {
      intervalMs: 200,
      timeoutMs: 300,
      meshMode: "auto",
      probeOptimisation: true,
      scheme: "http",
      ...opts,
    };
  }

  /** Destinations that passed (sorted). */
  get healthy(): string[] {
    return [...this.#healthy].sort();
  }

  /** New endpoint lists from the watch; probes at once. */
  updateEndpoints(ready: readonly string[], notReady: readonly string[]): Promise<void> {
    const nowNotReady = new Set(notReady);
    // A pod leaving readiness may be shutting down: stop trusting an earlier probe of it.
    for (const d of this.#ready) if (nowNotReady.has(d)) this.#healthy.delete(d);
    this.#ready = [...ready];
    this.#notReady = [...notReady];
    return this.probeNow();
  }

  /** Probe faster (the activating interval) while a revision is waking up. */
  setActivating(on: boolean): void {
    this.#activating = on;
  }

  /** Runs a round now (or right after the one in progress) and resolves when it is done. */
  probeNow(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#timer !== undefined) {
      this.#o.clock.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#loop();
    return this.#running;
  }

  /** Stops probing; pending timers are cancelled. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #loop(): Promise<void> {
    let result: ProbeRoundResult;
    try {
      do {
        this.#again = false;
        result = await this.#round();
      } while (this.#again && !this.#stopped);
    } finally {
      // A failing listener must not wedge the prober: the next probeNow starts afresh.
      this.#running = undefined;
    }
    const known = new Set([...this.#ready, ...this.#notReady]).size;
    if (this.#stopped || known === 0 || (!result.error && this.#healthy.size >= known)) return;
    const o = this.#o;
    const interval = this.#activating ? (o.activatingIntervalMs ?? o.intervalMs) : o.intervalMs;
    this.#timer = o.clock.setTimeout(() => {
      this.#timer = undefined;
      void this.probeNow();
    }, interval);
  }

  async #round(): Promise<ProbeRoundResult> {
    const o = this.#o;
    const result = await probeRound(
      {
        ready: this.#ready,
        notReady: this.#notReady,
        healthy: this.#healthy,
        meshMode: o.meshMode,
        probeOptimisation: o.probeOptimisation,
        timeoutMs: o.timeoutMs,
      },
      (dest, signal) => probeDestination(o.fetch, dest, signal, o.scheme),
      o.clock,
    );
    if (result.error) o.onError?.(result.error);
    if (this.#stopped) return result;
    this.#healthy = result.healthy;
    const list = this.healthy;
    if (
      !this.#reported ||
      list.length !== this.#reported.length ||
      list.some((d, i) => d !== this.#reported?.[i])
    ) {
      this.#reported = list;
      try {
        o.onHealthy(list);
      } catch (err) {
        o.onError?.(err instanceof Error ? err : new Error(String(err)));
      }
    }
    return result;
  }
}
