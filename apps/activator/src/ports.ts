import type { BodyBudget } from "@thaw/activation";
import type { Clock } from "@thaw/clock";
import type { Tracer, WireStatMessage } from "@thaw/protocol";

/** A revision's identity: Kubernetes namespace and revision name. */
export interface RevisionKey {
  namespace: string;
  name: string;
}

/** What the activator needs to know about one revision (Knative defaults in `defaultRevisionConfig`). */
export interface RevisionConfig {
  /** Per-pod concurrency limit; 0 = unlimited. */
  containerConcurrency: number;
  /** Total time a request may take, waiting included. */
  timeoutSeconds: number;
  /** Time until the first response byte; 0 = off. */
  responseStartTimeoutSeconds: number;
  /** Longest gap between response writes; 0 = off. */
  idleTimeoutSeconds: number;
  /** Requests that may wait for capacity at once; more get 503 + Retry-After. */
  maxQueue: number;
  /** Request bodies up to this many bytes are kept for replay; larger ones stream once. */
  bodyBufferCap: number;
}

/** Looks revisions up by identity; `undefined` = unknown (404). */
export interface RevisionDirectory {
  lookup(key: RevisionKey): RevisionConfig | undefined | Promise<RevisionConfig | undefined>;
  /** Every revision known now, for `/v1/watch`'s first events. */
  list(): RevisionKey[];
}

/** What discovery knows of a revision besides its pods. */
export interface EndpointDetail {
  /**
   * The revision's private Service as `clusterIP:port`: probed, and routed through, when no pod passes the
   * probe and every pod gave a mesh-like answer (knative-spec d.3). Undefined: no fallback.
   */
  clusterIP?: string | undefined;
  /**
   * The listed endpoints Kubernetes does not call ready (yet). The prober still probes and may use them;
   * the ClusterIP's backends are the others. Undefined: every listed endpoint counts as ready.
   */
  notReady?: string[];
}

/**
 * Pod discovery: the "host:port" addresses of a revision's pods, ready or not (the prober decides).
 * Implementations: a static list, the CLI's local processes, Kubernetes EndpointSlices.
 */
export interface EndpointSource {
  /** Calls `onChange` now with the current list and again on every change; returns an unsubscribe. */
  subscribe(key: RevisionKey, onChange: (endpoints: string[], detail?: EndpointDetail) => void): () => void;
}

/** Where the activator's concurrency reports go. `send` must return at once: it never blocks requests. */
export interface StatSink {
  send(messages: WireStatMessage[]): void;
  /** One text frame to the autoscaler (a FirstByteNote), where the link carries them. */
  note?(text: string): void;
}

/** Asks whatever scales the revision to start a pod now (the cold-start poke). */
export interface ScalerPoke {
  poke(key: RevisionKey): void;
}

/** A request as the activator sends it to a pod. */
export interface UpstreamRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: Headers;
  /** `null` = no body. A stream is consumed once; bytes are replayable. */
  body: Uint8Array | ReadableStream<Uint8Array> | null;
  signal: AbortSignal;
}

/** A pod's answer. */
export interface UpstreamResponse {
  status: number;
  headers: Headers;
  /** Bytes when the forwarder read a small, complete body already (cheaper than a stream). */
  body: ReadableStream<Uint8Array> | Uint8Array | null;
  /** The runtime's own Response, when it carries more than status/headers/body (a Workers 101 + webSocket). */
  raw?: Response;
}

/** Thrown by a `Forwarder` when no answer came; `sent` tells whether request bytes may have reached the pod. */
export class UpstreamError extends Error {
  readonly code = "ERR_UPSTREAM";
  constructor(
    message: string,
    /** false only when the connection was never established (refused, DNS, connect timeout). */
    readonly sent: boolean,
  ) {
    super(message);
    this.name = "UpstreamError";
  }
}

/** Sends one request to one pod ("host:port"). */
export type Forwarder = (dest: string, req: UpstreamRequest) => Promise<UpstreamResponse>;

/** Structured logging; fields are plain JSON values. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/** A slot on one pod, held while a request is forwarded there. */
export interface Lease {
  dest: string;
  release(): void;
}

/** Whoever parks for a lease: told once, with the lease or why there is none. */
export interface LeaseWaiter {
  granted(lease: Lease): void;
  refused(err: Error): void;
}

/** What a wait for readiness found (the body of a 200 `/v1/activate`, minus identity). */
export interface ActivationOutcome {
  endpoints: string[];
  coldStart: boolean;
  waitedMs: number;
}

/** Per-revision coordination: capacity, probing, activation. In process on Node, a Durable Object at the edge. */
export interface RevisionGate {
  /**
   * Waits for a slot on a healthy pod. Rejects with an error whose `code` is ERR_QUEUE_FULL, ERR_DEADLINE or
   * ERR_CANCELLED when the queue is full or `signal` fires first.
   */
  acquire(signal: AbortSignal): Promise<Lease>;
  /** A forward to `dest` failed before any answer: probe it again now. */
  reportFailure(dest: string): void;
  /** A slot right now if one is free, without waiting (the Node warm path); absent = not supported. */
  tryAcquire?(): Lease | undefined;
  /**
   * The callback form of `acquire`, for holding many waiters cheaply (the Node path): `who.granted(lease)`
   * once a slot is reserved, `who.refused(err)` (code ERR_QUEUE_FULL) when the queue is full; either may run
   * before it returns, and then it returns undefined, else a ticket whose `cancel()` gives the place up.
   * Absent = not supported.
   */
  park?(who: LeaseWaiter): { cancel(): boolean } | undefined;
  /** Waits until >= 1 pod passes the queue probe (single flight); rejects with ERR_DEADLINE after `timeoutMs`. */
  activate(timeoutMs: number, signal?: AbortSignal): Promise<ActivationOutcome>;
  /** Pods that passed the probe, now. */
  readyEndpoints(): string[];
  /**
   * The revision's pods are known to be failing (the scaler saw the app exit before it was ready, or listen
   * on the wrong port): every waiter is answered now, ERR_REVISION_FAILED with `cause`, instead of at its
   * deadline. Absent = not supported (waiters then time out as before).
   */
  fail?(cause: string, retryAfterSeconds?: number): void;
  /** Why the revision is not ready yet, as last diagnosed, for a timeout's answer; undefined clears it. */
  explain?(why: string | undefined): void;
  /** Recent cold-start durations (ms), newest last; Retry-After is computed from them. */
  recentColdStartsMs(): number[];
  /** Phases of the latest cold start, for Server-Timing. */
  lastColdStart(): ColdStartPhases | undefined;
}

/** How the latest cold start of a revision split up (ms). */
export interface ColdStartPhases {
  /** When the revision was found cold (first waiter), epoch ms. */
  beganAt: number;
  /** Until the endpoint source listed a pod. */
  scaleMs: number;
  /** From listed until the pod passed the queue probe. */
  readyMs: number;
}

/** Hands out one `RevisionGate` per revision and reports endpoint changes for `/v1/watch`. */
export interface Coordinator {
  gate(key: RevisionKey, config: RevisionConfig): RevisionGate;
  /** Calls `listener` on every change of a revision's ready endpoints; returns an unsubscribe. */
  onEndpoints(listener: (key: RevisionKey, endpoints: string[]) => void): () => void;
  /** Stops every prober and timer. */
  close(): void;
  /** Requests waiting for capacity now, per revision (read on scrape; optional for coordinators without a queue). */
  queueDepths?(): Iterable<QueueDepth>;
}

/** One revision's waiting requests. */
export interface QueueDepth {
  namespace: string;
  name: string;
  waiting: number;
}

/** Everything `createActivatorApp` composes. */
export interface ActivatorDeps {
  revisions: RevisionDirectory;
  coordinator: Coordinator;
  forward: Forwarder;
  clock: Clock;
  /** Per-request concurrency accounting feeding the autoscaler (the activation package's reporter). */
  reporter: RequestReporter;
  /** Bearer token for `/v1/*`; none = open. */
  token?: string;
  /**
   * Without a token, `/v1/*` answers only loopback Hosts and same-origin callers (the standalone bin); off
   * where the API is only called in process (thaw up's gateway checks its own entry).
   */
  localOnlyWithoutToken?: boolean;
  logger?: Logger;
  /** Kubelet probe state: healthy until draining or the stats link is down. */
  health?: () => { ok: true } | { ok: false; reason: string };
  /** Activator instance name, for stat messages. */
  podName?: string;
  /** Spans for activation, queueing and forwarding; absent = tracing off (no span, no header touched). */
  tracer?: Tracer;
  /**
   * Takes a wake hint (`ttlSeconds` on `/v1/activate`): keep the revision at ≥ 1 pod for `ttlMs` without
   * counting it as load; returns until when (epoch ms), or rejects when it could not be passed on. Absent =
   * this activator has nothing to tell, and a hint is refused.
   */
  warm?: (key: RevisionKey, ttlMs: number) => number | Promise<number>;
  /**
   * Passes an ingress hook's held-request stats (`POST /v1/stats`) on with this activator's own; the answer
   * waits for it. Absent = refused with 404, and the hook stops sending.
   */
  relayStats?: (messages: WireStatMessage[]) => void | Promise<void>;
  /**
   * Bounds the request bodies kept for a replay, all requests together, per revision and for the process
   * (see BodyBudget); `createActivatorApp` makes one with the defaults when absent.
   */
  bodyBudget?: BodyBudget;
  /** Heartbeat period of `/v1/watch` (default 15 s). */
  watchPingMs?: number;
  /**
   * Passthrough load balancing (knative-spec d.1): forwards carry `Host: <rev>-private.<ns>` and
   * `K-Passthrough-Lb: true`, so a mesh keeps the pod the activator chose. Default off.
   */
  passthroughLb?: boolean;
}

/**
 * The slice of @thaw/activation's ConcurrencyReporter the request path uses; the reporter itself sends the
 * cold-start poke and the periodic reports to the stat sink.
 */
export interface RequestReporter {
  requestIn(key: RevisionKey, now: number): void;
  requestOut(key: RevisionKey, now: number): void;
}
