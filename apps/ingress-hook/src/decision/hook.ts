import { ColdStartLog, outwaitsCaller, QueueFullError } from "@thaw/activation";
import type { Clock } from "@thaw/clock";
import { ErrorCode, httpStatusFor, revisionKey, type Tracer, type TraceSpan } from "@thaw/protocol";
import type { WaitingPage } from "../waiting-page/hold.js";
import type { PageFacts } from "../waiting-page/page.js";
import type { ActivationOutcome, ActivatorClient } from "./activator-client.js";
import { CapacityRelease, type SlotsView } from "./capacity-release.js";
import type { Allow, Cold, Decision, Deny } from "./decision.js";
import { HeldDemand, type HeldStatsSink } from "./held-demand.js";
import { isInternalHeader, ROUTE_TOKEN_HEADER } from "./internal-headers.js";
import type { HookRequest } from "./request-view.js";
import type { Resolver } from "./resolvers.js";
import { RevisionSlot } from "./revision-slot.js";
import { isRouteTrusted } from "./route-trust.js";
import { SingleFlight } from "./single-flight.js";
import { pickUpstream, warmAllow } from "./slot-answers.js";
import { activationPolicyPicker, type UpstreamPicker } from "./upstream-picker.js";
import { WarmCache } from "./warm-cache.js";
import { WarmHinter, type WarmRule } from "./warm-hints.js";

/** Options of {@link IngressHook}. */
export interface IngressHookOptions {
  resolvers: readonly Resolver[];
  activator: ActivatorClient;
  clock: Clock;
  /** Life of a warm entry not vouched for by a live watch stream (default 2000 ms). */
  warmTtlMs?: number;
  /** How long a cold request may wait for activation, end to end (default 60 000 ms). */
  activationTimeoutMs?: number;
  /** Secret the route sends in X-Thaw-Route-Token to make its Knative-Serving-* headers believed. */
  routeToken?: string;
  /** Outside internal headers: strip them (the proxy or middleware drops them) or refuse with 400. */
  internalHeaders?: "strip" | "reject";
  /** Random source of the load-balancing policy (Math.random in production, seeded in tests). */
  random: () => number;
  /**
   * How long a cold request of this revision waits for it (ms); default `activationTimeoutMs`. `thaw up`
   * gives each revision its `timeoutSeconds`, as Knative counts the activator's wait toward that timeout.
   */
  activationTimeoutFor?: (key: string) => number | undefined;
  /** containerConcurrency per revision key, which picks the activator's LB policy; default 0. */
  containerConcurrencyFor?: (key: string) => number;
  /** Chooses the pod for X-Thaw-Upstream (default: the activator's policy, see upstream-picker.ts). */
  picker?: UpstreamPicker;
  /**
   * The activator's `host:port` for the request path. When set, requests held while their revision was
   * cold, and every request while it is in proxy mode, are allowed `via: "activator"` to this address,
   * so the activator's throttler releases them at the pods' capacity. Unset: released straight to a pod.
   */
  activatorUpstream?: string;
  /**
   * Retry-After before any cold start of the revision was measured here (default 1); after, the measured
   * starts' high percentile (see `expectedStartMs` in @thaw/activation).
   */
  retryAfterSeconds?: number;
  /** A revision's waiting page for people (thaw.config.yaml `waitingPage`); undefined = none. */
  waitingPageFor?: (key: string) => WaitingPage | undefined;
  /** Most held requests waiting for a pod slot per revision in `releaseHeld` (default 10 000). */
  maxQueue?: number;
  /** A revision's own bound in place of `maxQueue` (thaw.config.yaml's `maxQueue`); undefined = `maxQueue`. */
  maxQueueFor?: (key: string) => number | undefined;
  /** Spans for decisions and activations (docs/tracing.md); absent = tracing off. */
  tracer?: Tracer;
  /** Wake-hint rules: a request on a rule's path sends `ttlSeconds` hints for its services (warm-hints.ts). */
  warm?: readonly WarmRule[];
  /**
   * Where the requests this hook holds are reported as load, as Knative's activator reports the ones it holds
   * (see HeldDemand); absent = not reported (only the activation's poke reaches the autoscaler).
   */
  heldStats?: HeldStatsSink;
}

/** A request let go by {@link IngressHook.releaseHeld}: where it goes, and the slot to give back when done. */
export interface Released {
  readonly allow: Allow;
  /** Gives the pod slot back (once); absent when the request took none. */
  readonly release?: () => void;
}

/** Counters for status pages and tests. */
export interface HookStats {
  warmAllows: number;
  coldAllows: number;
  activations: number;
  denies: number;
  /** Allowed to a revision's last known pods because the activator could not be reached. */
  staleAllows: number;
}

/** A resolver as the hook runs it: answering the revision's slot. */
interface SlotFinder {
  readonly trust: Resolver["trust"];
  readonly find: (req: HookRequest) => RevisionSlot | undefined;
}

const ROUTE_SET = new Set(["knative-serving-namespace", "knative-serving-revision", ROUTE_TOKEN_HEADER]);

/**
 * The Lua filter's job without its two obstacles: the revision comes from route metadata through
 * resolvers, and warm revisions are answered from a local cache with no activator call.
 */
export class IngressHook {
  readonly cache: WarmCache;
  readonly stats: HookStats = {
    warmAllows: 0,
    coldAllows: 0,
    activations: 0,
    denies: 0,
    staleAllows: 0,
  };
  readonly #o: Required<
    Omit<
      IngressHookOptions,
      | "routeToken"
      | "activatorUpstream"
      | "containerConcurrencyFor"
      | "maxQueueFor"
      | "tracer"
      | "activationTimeoutFor"
      | "warm"
      | "waitingPageFor"
      | "heldStats"
    >
  > &
    Pick<
      IngressHookOptions,
      "routeToken" | "activatorUpstream" | "tracer" | "activationTimeoutFor" | "waitingPageFor"
    >;
  readonly #flights = new SingleFlight<ActivationOutcome>();
  readonly #capacity: CapacityRelease | undefined;
  readonly #maxQueueFor: (key: string) => number;
  readonly #finders: readonly SlotFinder[];
  readonly #hinter: WarmHinter | undefined;
  /** Cold starts as this hook saw them: from its activation call to the activator's "ready". */
  readonly #coldStarts = new ColdStartLog();
  readonly #held: HeldDemand | undefined;

  constructor(options: IngressHookOptions) {
    this.#o = {
      warmTtlMs: 2000,
      activationTimeoutMs: 60_000,
      internalHeaders: "strip",
      picker: activationPolicyPicker({
        random: options.random,
        ...(options.containerConcurrencyFor
          ? { containerConcurrencyFor: options.containerConcurrencyFor }
          : {}),
      }),
      retryAfterSeconds: 1,
      maxQueue: 10_000,
      // An option given as undefined keeps its default.
      ...(Object.fromEntries(
        Object.entries(options).filter(([, v]) => v !== undefined),
      ) as IngressHookOptions),
    };
    if (!(this.#o.activationTimeoutMs > 0)) {
      throw new RangeError(`activationTimeoutMs must be > 0, got ${this.#o.activationTimeoutMs}`);
    }
    this.cache = new WarmCache(this.#o.warmTtlMs);
    this.#finders = this.#o.resolvers.map((r) => this.#finderOf(r));
    const activator = this.#o.activator;
    this.#hinter =
      options.warm && options.warm.length > 0
        ? new WarmHinter(
            options.warm,
            (svc, ttlSeconds) => activator.activate({ ...svc, ttlSeconds }),
            this.#o.clock,
          )
        : undefined;
    const maxQueue = this.#o.maxQueue;
    this.#maxQueueFor = (key) => options.maxQueueFor?.(key) ?? maxQueue;
    this.#held = options.heldStats ? new HeldDemand(options.heldStats, this.#o.clock) : undefined;
    if (!this.#o.activatorUpstream && options.containerConcurrencyFor) {
      this.#capacity = new CapacityRelease(options.containerConcurrencyFor, this.#maxQueueFor);
    }
  }

  /** Clock the hook runs on (the watch uses it too). */
  get clock(): Clock {
    return this.#o.clock;
  }

  /**
   * Whether a wake-hint rule watches requests for `host`: a proxy must not answer them from a cached
   * decision (its cache is keyed by host, so a cached allow for `/` would also serve the rule's path and
   * the hint would never be sent).
   */
  hintsHost(host: string): boolean {
    return this.#hinter?.watches(host) ?? false;
  }

  /** The synchronous part: deny, allow from the warm cache, or say the revision is cold. Pure given `now`. */
  tryDecide(req: HookRequest, now: number): Decision | Cold {
    const trusted = isRouteTrusted(req.headers, this.#o.routeToken);
    if (this.#o.internalHeaders === "reject") {
      const bad = outsideInternalHeader(req.headers, trusted);
      if (bad) return this.#deny(ErrorCode.ERR_BAD_REQUEST, `header ${bad} may not be sent from outside`);
    }
    const slot = this.#find(req, trusted);
    // Fire and forget: the hint never holds this request.
    if (slot) this.#hinter?.observe(req.host, req.path);
    if (!slot) {
      return this.#deny(
        ErrorCode.ERR_UNKNOWN_REVISION,
        `no revision is routed for host ${req.host} path ${req.path}`,
      );
    }
    if (!this.cache.isWarm(slot, now)) return { kind: "cold", revision: slot.ref, key: slot.key };
    this.stats.warmAllows++;
    if (slot.mode === "proxy" && this.#o.activatorUpstream) {
      slot.viaActivator ??= this.#viaActivator(slot.ref, slot.key, true);
      return slot.viaActivator;
    }
    return warmAllow(slot, this.#o.picker);
  }

  /** The first resolver's answer (in order, route-trust ones only when trusted) as the revision's slot. */
  #find(req: HookRequest, trusted: boolean): RevisionSlot | undefined {
    for (const f of this.#finders) {
      if (f.trust === "route" && !trusted) continue;
      const slot = f.find(req);
      if (slot) return slot;
    }
    return undefined;
  }

  /** A resolver as a slot finder: bound tables answer pinned slots; others an id looked up by key. */
  #finderOf(r: Resolver): SlotFinder {
    const find =
      r.bind?.((ref) => this.cache.pin(ref, revisionKey(ref))) ??
      ((req: HookRequest) => {
        const ref = r.resolve(req);
        if (!ref) return undefined;
        const key = revisionKey(ref);
        // Not cached: a slot of its own that the cache never holds, enough to say "cold".
        return this.cache.peek(key) ?? new RevisionSlot(ref, key);
      });
    return { trust: r.trust, find };
  }

  /** Whether decisions are traced (`startSpan` starts spans). */
  get traced(): boolean {
    return this.#o.tracer !== undefined;
  }

  /**
   * The decision's span, a child of the request's W3C trace context (the client's, which forward-auth
   * proxies pass on the subrequest); undefined when tracing is off. End it with {@link endDecisionSpan}.
   */
  startSpan(req: HookRequest): TraceSpan | undefined {
    return this.#o.tracer?.startSpan("hook.decide", (n) => req.headers.get(n), "server", {
      "http.request.method": req.method,
      "thaw.host": req.host,
    });
  }

  /** The whole decision: cold revisions are activated once (single flight) and waited for with a deadline. */
  async decide(req: HookRequest, span?: TraceSpan): Promise<Decision> {
    const d = this.tryDecide(req, this.#o.clock.now());
    return d.kind === "cold" ? this.activate(d, span) : d;
  }

  /**
   * Activates a cold revision and turns the outcome into a decision. With `span`, the request that leads
   * the single flight makes a `hook.activate` child whose context the activator's `/v1/activate` continues.
   * A caller whose own deadline (`callerMs`: grpc-timeout, Request-Timeout, Prefer: wait) ends before the
   * revision's measured start gets its 503 + Retry-After at once; the activation still starts, for its retry.
   */
  async activate(cold: Cold, span?: TraceSpan, callerMs?: number): Promise<Decision> {
    // Held from here until the decision hands the request on (or refuses it): demand the autoscaler sees.
    const handOff = this.#held?.hold(cold.revision);
    try {
      return await this.#activate(cold, span, callerMs);
    } finally {
      handOff?.();
    }
  }

  async #activate(cold: Cold, span?: TraceSpan, callerMs?: number): Promise<Decision> {
    const { key, revision } = cold;
    let led = false;
    const timeoutMs = this.#o.activationTimeoutFor?.(key) ?? this.#o.activationTimeoutMs;
    const flight = this.#flights.run(key, async () => {
      led = true;
      this.stats.activations++;
      const req = { ...revision, timeoutMs };
      const began = this.#o.clock.now();
      const call = span?.child("hook.activate", "client", { "thaw.revision": key });
      const outcome = await this.#o.activator.activate(req, call?.carrier());
      call?.end(outcome.kind === "ready" ? undefined : outcome.kind);
      if (outcome.kind === "ready" && outcome.coldStart)
        this.#coldStarts.record(key, this.#o.clock.now() - began);
      return outcome;
    });
    if (outwaitsCaller(callerMs, this.expectedStartMs(key))) {
      flight.catch(() => {});
      return this.#deny(
        ErrorCode.ERR_DEADLINE,
        `revision ${key} is starting and usually takes ${this.expectedStartMs(key)} ms, longer than the request's own deadline of ${callerMs} ms`,
        this.#retryAfter(key),
      );
    }
    const outcome = await flight;
    span?.setAttribute("thaw.activation.shared", !led);
    switch (outcome.kind) {
      case "ready": {
        this.cache.recordActivation(key, outcome.endpoints, this.#o.clock.now());
        this.stats.coldAllows++;
        // Held while cold: every waiter is released at once here, so a pod would get the whole burst.
        // The activator's throttler hands them out at the pods' capacity, first come first served.
        if (this.#o.activatorUpstream) return this.#viaActivator(revision, key, false);
        // The slot now holds these endpoints (or a live watch entry's newer ones).
        const slot = this.cache.peek(key);
        const upstream = slot ? pickUpstream(slot, this.#o.picker) : undefined;
        const allow: Allow = { kind: "allow", revision, key, upstream, via: "pod", warm: false };
        return allow;
      }
      case "unknown":
        this.cache.invalidate(key);
        return this.#deny(ErrorCode.ERR_UNKNOWN_REVISION, `revision ${key} is unknown: ${outcome.message}`);
      case "timeout":
        return this.#deny(
          ErrorCode.ERR_ACTIVATION_TIMEOUT,
          `revision ${key} did not become ready within ${timeoutMs} ms${outcome.detail ? `: ${outcome.detail}` : ""}`,
          outcome.retryAfterSeconds ?? this.#retryAfter(key),
        );
      case "failed":
        return this.#deny(
          ErrorCode.ERR_REVISION_FAILED,
          `revision ${key} is failing: ${outcome.message}`,
          outcome.retryAfterSeconds ?? this.#retryAfter(key),
        );
      case "unavailable": {
        // An activator that is down or restarting comes back. Until then a revision whose pods were last
        // seen ready goes on being served from them, as Knative's warm routes never pass its activator: the
        // entry only went stale because the watch that vouched for it dropped with the activator. If those
        // pods are gone too, the proxy's own upstream error answers (infra/nginx: 503 + Retry-After).
        const stale = outcome.transient ? this.#lastKnownPods(key) : undefined;
        if (stale) return stale;
        // Nothing known: tell the client when to try again. A refused token or a malformed answer is a
        // setup fault that waiting does not fix.
        return this.#deny(
          ErrorCode.ERR_UPSTREAM,
          `cannot activate ${key}: ${outcome.message}`,
          outcome.transient ? this.#retryAfter(key) : undefined,
        );
      }
    }
  }

  /**
   * An allow to one of the pods the revision last had in serve mode, however old that entry is; not warm,
   * so no proxy caches it (the next request asks again, and gets the activator's answer once it is back).
   */
  #lastKnownPods(key: string): Allow | undefined {
    const slot = this.cache.peek(key);
    if (!slot || slot.podCount === 0 || slot.mode !== "serve") return undefined;
    this.stats.staleAllows++;
    return {
      kind: "allow",
      revision: slot.ref,
      key,
      upstream: pickUpstream(slot, this.#o.picker),
      via: "pod",
      warm: false,
    };
  }

  /**
   * The fallback release, for callers that see the request finish (the `thawIngress` middleware) in a hook
   * without an activator upstream: an allowed request to a pod waits, first come first served, for a slot
   * on a ready pod (containerConcurrency per pod; see CapacityRelease) and goes to that pod; `release()`
   * once its response has ended. Warm requests take slots too: passing them at once would let a request
   * that reached the gateway just after the activation (a loaded machine, a long burst) overtake the held
   * ones and land on a pod that is already full. Any other allow passes at once. Past the revision's queue
   * bound: 503 `ERR_QUEUE_FULL` + Retry-After.
   */
  async releaseHeld(d: Allow, signal?: AbortSignal): Promise<Released | Deny> {
    const now = this.tryRelease(d);
    if (now) return now;
    const endpoints = this.#endpointsOf(d.key);
    // Waiting for a pod slot is holding too; the pod's queue-proxy counts it once it is let go.
    const handOff = this.#held?.hold(d.revision);
    try {
      const slot = await (this.#capacity as CapacityRelease).acquire(d.key, endpoints, signal);
      return slot ? { allow: { ...d, upstream: slot.dest }, release: slot.release } : { allow: d };
    } catch (err) {
      if (err instanceof QueueFullError) {
        return this.#deny(
          ErrorCode.ERR_QUEUE_FULL,
          `more than ${this.#maxQueueFor(d.key)} requests wait for ${d.key}`,
          this.#retryAfter(d.key),
        );
      }
      return this.#deny(ErrorCode.ERR_CANCELLED, `request for ${d.key} ended while it waited for a pod`);
    } finally {
      handOff?.();
    }
  }

  /** The pod slots of each revision with a per-pod limit (none without the fallback release). */
  podSlots(): Record<string, SlotsView> {
    return this.#capacity?.snapshot() ?? {};
  }

  /** Stops reporting held requests (the hook's process is closing). */
  close(): void {
    this.#held?.stop();
  }

  /**
   * {@link releaseHeld} without waiting: the release when it needs no wait (no per-pod limit, or a slot is
   * free and nobody waits ahead), undefined when the caller must await `releaseHeld`.
   */
  tryRelease(d: Allow): Released | undefined {
    const pass: Released = { allow: d };
    if (!this.#capacity || d.via !== "pod") return pass;
    const slot = this.#capacity.tryAcquire(d.key, this.#endpointsOf(d.key));
    if (slot === "none") return pass;
    return slot ? { allow: { ...d, upstream: slot.dest }, release: slot.release } : undefined;
  }

  /** How long a cold start of `key` is expected to take (ms), from those measured here; undefined before any. */
  expectedStartMs(key: string): number | undefined {
    return this.#coldStarts.expectedMs(key);
  }

  /** The revision's waiting page, if it has one. */
  waitingPage(key: string): WaitingPage | undefined {
    return this.#o.waitingPageFor?.(key);
  }

  /** What the waiting page of `revision` says. */
  pageFacts(key: string, revision: Allow["revision"]): PageFacts {
    return {
      service: revision.name,
      namespace: revision.namespace,
      expectedMs: this.expectedStartMs(key),
      retryAfterSeconds: this.#retryAfter(key),
    };
  }

  /** Retry-After for `key`: its measured starts' estimate, or the configured default before any. */
  #retryAfter(key: string): number {
    return this.#coldStarts.recent(key).length > 0
      ? this.#coldStarts.retryAfterSeconds(key)
      : this.#o.retryAfterSeconds;
  }

  #endpointsOf(key: string): readonly string[] {
    return this.cache.get(key, this.#o.clock.now())?.endpoints ?? [];
  }

  #viaActivator(revision: Allow["revision"], key: string, warm: boolean): Allow {
    return { kind: "allow", revision, key, upstream: this.#o.activatorUpstream, via: "activator", warm };
  }

  #deny(code: string, message: string, retryAfterSeconds?: number): Deny {
    this.stats.denies++;
    const status = denyStatus(code);
    return retryAfterSeconds === undefined
      ? { kind: "deny", status, code, message }
      : { kind: "deny", status, code, message, retryAfterSeconds };
  }
}

/**
 * The client's status for a code. httpStatusFor is the one mapping; the hook differs only where the
 * contract says so: an activation timeout (504 at /v1/activate) and an unreachable or failing activator
 * both tell the client to come back later, 503.
 */
export function denyStatus(code: string): Deny["status"] {
  if (code === ErrorCode.ERR_ACTIVATION_TIMEOUT || code === ErrorCode.ERR_UPSTREAM) return 503;
  if (code === ErrorCode.ERR_REVISION_FAILED) return 503;
  const s = httpStatusFor(code);
  return s === 400 || s === 404 ? s : 503;
}

/** First internal header the client (not the trusted route) sent, if any. */
function outsideInternalHeader(headers: Headers, routeTrusted: boolean): string | undefined {
  let bad: string | undefined;
  headers.forEach((_v, name) => {
    if (bad === undefined && isInternalHeader(name) && !(routeTrusted && ROUTE_SET.has(name))) bad = name;
  });
  return bad;
}
