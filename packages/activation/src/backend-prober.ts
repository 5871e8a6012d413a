import type { Clock, TimerHandle } from "@thaw/clock";
import type { RevisionId } from "@thaw/protocol";
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
  /**
   * The revision's private service `host:port`, probed when no pod is healthy and pods may sit behind a
   * mesh (d.3 fallback). Undefined: no fallback. Needs `onClusterIP`.
   */
  clusterIP?: string;
  /**
   * Passthrough load balancing is on: probes carry `Host: <rev>-private.<ns>` and `K-Passthrough-Lb: true`
   * (P2), and pods are always addressable, so no ClusterIP fallback. Default false. Needs `revision`.
   */
  passthroughLb?: boolean;
  /** The revision probed: its private service is the Host of passthrough-LB probes. */
  revision?: RevisionId;
  /**
   * Called once the ClusterIP passed its probe and on every endpoint update after that, with the number of
   * ready endpoints behind it (0 = no backends). `onHealthy` is not called any more then.
   */
  onClusterIP?: (dest: string, backends: number) => void;
}

type Defaulted = "intervalMs" | "timeoutMs" | "meshMode" | "probeOptimisation" | "scheme" | "passthroughLb";

/**
 * Watches one revision's endpoints and keeps its healthy set (d.3): probes on every endpoint change,
 * then every interval while some destination is not healthy; drops an endpoint that goes from ready
 * to not ready and probes it again. `probeNow()` runs a round at once for a fast cold start.
 */
export class BackendProber {
  readonly #o: Required<Pick<BackendProberOptions, Defaulted>> & BackendProberOptions;
  #ready: string[] = [];
  #notReady: string[] = [];
  #healthy = new Set<string>();
  #reported: string[] | undefined;
  #timer: TimerHandle | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #activating = false;
  #stopped = false;
  // Some probe got an answer no mesh would give: pods are addressable, the ClusterIP fallback is off.
  #sawNotMesh = false;
  // Set for good once the ClusterIP passed its probe (Knative switches per watcher, never back).
  #viaClusterIP = false;

  constructor(opts: BackendProberOptions) {
    if (opts.clusterIP !== undefined && opts.onClusterIP === undefined) {
      throw new TypeError("BackendProber: clusterIP needs an onClusterIP callback");
    }
    if (opts.passthroughLb && opts.revision === undefined) {
      throw new TypeError("BackendProber: passthroughLb needs the revision (the Host of its probes)");
    }
    this.#o = {
      intervalMs: 200,
      timeoutMs: 300,
      meshMode: "auto",
      probeOptimisation: true,
      scheme: "http",
      passthroughLb: false,
      ...opts,
    };
  }

  /** The ClusterIP routed through after the fallback; undefined while pods are probed. */
  get clusterIP(): string | undefined {
    return this.#viaClusterIP ? this.#o.clusterIP : undefined;
  }

  /**
   * Sets the private service `host:port` when discovery learns it after the start (undefined = none
   * known). Before the switch it only changes what the fallback probes; after it, the new address is
   * reported through `onClusterIP` (the switch itself is never undone, as in Knative).
   */
  setClusterIP(dest: string | undefined): void {
    if (dest === this.#o.clusterIP) return;
    if (dest !== undefined && this.#o.onClusterIP === undefined) {
      throw new TypeError("BackendProber: clusterIP needs an onClusterIP callback");
    }
    if (this.#viaClusterIP) {
      if (dest === undefined) return;
      this.#o.clusterIP = dest;
      this.#reportClusterIP();
      return;
    }
    this.#o.clusterIP = dest;
    // Pods may be failing with mesh answers right now: try the new address at once.
    if (dest !== undefined && this.#ready.length + this.#notReady.length > 0 && this.#healthy.size === 0)
      void this.probeNow();
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
    if (this.#viaClusterIP) {
      // The service balances over ready pods itself: nothing to probe, only the count to pass on.
      this.#reportClusterIP();
      return Promise.resolve();
    }
    return this.probeNow();
  }

  /** Probe faster (the activating interval) while a revision is waking up. */
  setActivating(on: boolean): void {
    this.#activating = on;
  }

  /** Runs a round now (or right after the one in progress) and resolves when it is done. */
  probeNow(): Promise<void> {
    if (this.#stopped || this.#viaClusterIP) return Promise.resolve();
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
      } while (this.#again && !this.#stopped && !this.#viaClusterIP);
    } finally {
      // A failing listener must not wedge the prober: the next probeNow starts afresh.
      this.#running = undefined;
    }
    const known = new Set([...this.#ready, ...this.#notReady]).size;
    if (this.#stopped || this.#viaClusterIP || known === 0 || (!result.error && this.#healthy.size >= known))
      return;
    const o = this.#o;
    const interval = this.#activating ? (o.activatingIntervalMs ?? o.intervalMs) : o.intervalMs;
    this.#timer = o.clock.setTimeout(() => {
      this.#timer = undefined;
      void this.probeNow();
    }, interval);
  }

  async #round(): Promise<ProbeRoundResult> {
    const o = this.#o;
    // The fallback is judged on the endpoints this round probed, not on ones that arrived meanwhile.
    const probed = this.#ready.length + this.#notReady.length;
    const result = await probeRound(
      {
        ready: this.#ready,
        notReady: this.#notReady,
        healthy: this.#healthy,
        meshMode: o.meshMode,
        probeOptimisation: o.probeOptimisation,
        timeoutMs: o.timeoutMs,
      },
      (dest, signal) =>
        probeDestination(o.fetch, dest, signal, o.scheme, o.passthroughLb ? o.revision : undefined),
      o.clock,
    );
    if (result.error) o.onError?.(result.error);
    if (this.#stopped) return result;
    this.#healthy = result.healthy;
    if (result.notMesh) this.#sawNotMesh = true;
    if (this.#fallbackAllowed(probed) && (await this.#probeClusterIP())) {
      this.#viaClusterIP = true;
      this.#healthy = new Set();
      this.#reportClusterIP();
      return result;
    }
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

  // d.3: no pod healthy, none known to be addressable, no passthrough LB, and a mesh possibly in the way.
  // A round whose endpoints changed while it ran (`#again`) leaves the decision to the next one.
  #fallbackAllowed(probed: number): boolean {
    const o = this.#o;
    return (
      o.clusterIP !== undefined &&
      this.#healthy.size === 0 &&
      probed > 0 &&
      !this.#again &&
      !this.#sawNotMesh &&
      !o.passthroughLb &&
      o.meshMode !== "disabled"
    );
  }

  async #probeClusterIP(): Promise<boolean> {
    const o = this.#o;
    const dest = o.clusterIP as string;
    const ac = new AbortController();
    const timer = o.clock.setTimeout(() => ac.abort(new Error("ClusterIP probe timed out")), o.timeoutMs);
    try {
      const outcome = await probeDestination(o.fetch, dest, ac.signal, o.scheme);
      if (outcome.error) o.onError?.(outcome.error);
      return outcome.healthy && !this.#stopped;
    } finally {
      o.clock.clearTimeout(timer);
    }
  }

  #reportClusterIP(): void {
    const o = this.#o;
    try {
      o.onClusterIP?.(o.clusterIP as string, this.#ready.length);
    } catch (err) {
      o.onError?.(err instanceof Error ? err : new Error(String(err)));
    }
  }
}
