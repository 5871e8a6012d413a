import type {
  ActivationOutcome,
  ColdStartPhases,
  Coordinator,
  Lease,
  RevisionConfig,
  RevisionGate,
  RevisionKey,
} from "../ports.js";
import type { WorkerEnv } from "./env.js";
import type { GateSnapshot, RevisionSetup } from "./rpc-types.js";

/** The edge-only part of a revision's setup. */
export type EdgeExtras = Pick<RevisionSetup, "readinessPath" | "autoscaling">;

class CodedError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** More about a timeout (the last probe failure and its fix), appended by /v1/activate. */
    readonly detail = "",
  ) {
    super(message);
  }
}

/**
 * The Worker's side of a revision: every call goes to the revision's `RevisionActivator` Durable Object,
 * while the request itself (and its body) stays in this invocation.
 */
class DoGate implements RevisionGate {
  #snap: GateSnapshot = { endpoints: [], recentColdStartsMs: [], lastColdStart: undefined };
  readonly #stub: DurableObjectStub<import("./revision-activator.js").RevisionActivator>;
  readonly #setup: RevisionSetup;
  readonly #timeoutMs: number;

  readonly #waitUntil: (p: Promise<unknown>) => void;

  constructor(
    env: WorkerEnv,
    key: RevisionKey,
    config: RevisionConfig,
    endpoints: string[],
    waitUntil: (p: Promise<unknown>) => void,
    extras: EdgeExtras,
  ) {
    this.#waitUntil = waitUntil;
    this.#stub = env.REVISION_ACTIVATOR.get(
      env.REVISION_ACTIVATOR.idFromName(`${key.namespace}/${key.name}`),
    );
    this.#setup = { key, config, endpoints, ...extras };
    this.#timeoutMs = config.timeoutSeconds * 1000;
  }

  async acquire(signal: AbortSignal): Promise<Lease> {
    const waiterId = crypto.randomUUID();
    const onAbort = () => this.#waitUntil(this.#stub.cancel(waiterId));
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const r = await this.#stub.acquire(waiterId, this.#timeoutMs, this.#setup);
      this.#snap = r.snapshot;
      if (signal.aborted) {
        if (r.ok) this.#waitUntil(this.#stub.release(r.leaseId));
        throw signal.reason;
      }
      if (!r.ok) throw new CodedError(r.code, r.message);
      const stub = this.#stub;
      const waitUntil = this.#waitUntil;
      let done = false;
      return {
        dest: r.dest,
        release: () => {
          if (done) return;
          done = true;
          // The response may be complete before this RPC is: keep the invocation alive until it lands.
          waitUntil(stub.release(r.leaseId));
        },
      };
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  reportFailure(dest: string): void {
    this.#waitUntil(this.#stub.reportFailure(dest));
  }

  async activate(timeoutMs: number): Promise<ActivationOutcome> {
    const r = await this.#stub.activate(timeoutMs, this.#setup);
    if (!r.ok) throw new CodedError(r.code, r.message, r.detail);
    return { endpoints: r.endpoints, coldStart: r.coldStart, waitedMs: r.waitedMs };
  }

  readyEndpoints(): string[] {
    return this.#snap.endpoints;
  }

  recentColdStartsMs(): number[] {
    return this.#snap.recentColdStartsMs;
  }

  lastColdStart(): ColdStartPhases | undefined {
    return this.#snap.lastColdStart;
  }
}

/** Durable-Object-backed coordinator for one Worker invocation (gates are cheap stubs). */
export class DoCoordinator implements Coordinator {
  readonly #gates = new Map<string, DoGate>();
  constructor(
    readonly env: WorkerEnv,
    readonly endpointsFor: (key: RevisionKey) => string[],
    /** The invocation's `ctx.waitUntil`, so release RPCs outlive the response. */
    readonly waitUntil: (p: Promise<unknown>) => void,
    /** The edge-only fields of a revision in REVISIONS (`readinessPath`, `autoscaling`). */
    readonly extrasFor: (key: RevisionKey) => EdgeExtras = () => ({}),
  ) {}

  gate(key: RevisionKey, config: RevisionConfig): RevisionGate {
    const id = `${key.namespace}/${key.name}`;
    let g = this.#gates.get(id);
    if (!g) {
      g = new DoGate(this.env, key, config, this.endpointsFor(key), this.waitUntil, this.extrasFor(key));
      this.#gates.set(id, g);
    }
    return g;
  }

  /** Edge watchers see the state each request finds; there is no cross-object push (documented). */
  onEndpoints(): () => void {
    return () => {};
  }

  close(): void {}
}
