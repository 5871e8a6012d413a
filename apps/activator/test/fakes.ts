import type { Clock } from "@thaw/clock";
import type {
  ActivationOutcome,
  ColdStartPhases,
  Coordinator,
  Lease,
  RequestReporter,
  RevisionConfig,
  RevisionDirectory,
  RevisionGate,
  RevisionKey,
} from "../src/ports.js";

/** Knative-like defaults for tests. */
export const testConfig: RevisionConfig = {
  containerConcurrency: 0,
  timeoutSeconds: 300,
  responseStartTimeoutSeconds: 0,
  idleTimeoutSeconds: 0,
  maxQueue: 100,
  bodyBufferCap: 1024 * 1024,
};

/** A directory over a fixed map of "ns/name" -> config. */
export function mapDirectory(entries: Record<string, Partial<RevisionConfig>>): RevisionDirectory {
  const keys = Object.keys(entries);
  return {
    lookup: (k) => {
      const e = entries[`${k.namespace}/${k.name}`];
      return e ? { ...testConfig, ...e } : undefined;
    },
    list: () =>
      keys.map((s) => {
        const [namespace, name] = s.split("/") as [string, string];
        return { namespace, name };
      }),
  };
}

class CodedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * TEST DOUBLE of a revision gate: hands out the ready endpoints round-robin, parks waiters until some are
 * set, and rejects with the contract's error codes. The app under test only sees the `RevisionGate` port.
 */
export class FakeGate implements RevisionGate {
  ready: string[] = [];
  waiters: { resolve: (l: Lease) => void }[] = [];
  failures: string[] = [];
  coldStarts: number[] = [];
  phases: ColdStartPhases | undefined;
  inUse = 0;
  #rr = 0;
  constructor(
    readonly maxQueue: number,
    readonly clock: Clock,
    readonly onChange: (eps: string[]) => void = () => {},
  ) {}

  setReady(eps: string[]): void {
    this.ready = eps;
    this.onChange(eps);
    while (this.ready.length > 0 && this.waiters.length > 0) this.waiters.shift()?.resolve(this.#lease());
  }

  #lease(): Lease {
    const dest = this.ready[this.#rr++ % this.ready.length] as string;
    this.inUse++;
    let released = false;
    return {
      dest,
      release: () => {
        if (!released) this.inUse--;
        released = true;
      },
    };
  }

  acquire(signal: AbortSignal): Promise<Lease> {
    if (signal.aborted) return Promise.reject(abortErr(signal));
    if (this.ready.length > 0) return Promise.resolve(this.#lease());
    if (this.waiters.length >= this.maxQueue) {
      return Promise.reject(new CodedError("ERR_QUEUE_FULL", "pending request queue full"));
    }
    return new Promise((resolve, reject) => {
      const w = { resolve };
      this.waiters.push(w);
      signal.addEventListener("abort", () => {
        this.waiters = this.waiters.filter((x) => x !== w);
        reject(abortErr(signal));
      });
    });
  }
  reportFailure(dest: string): void {
    this.failures.push(dest);
  }
  async activate(timeoutMs: number): Promise<ActivationOutcome> {
    const start = this.clock.now();
    const lease = await this.acquire(AbortSignal.timeout(timeoutMs));
    lease.release();
    return {
      endpoints: [...this.ready],
      coldStart: this.clock.now() > start,
      waitedMs: this.clock.now() - start,
    };
  }
  readyEndpoints(): string[] {
    return this.ready;
  }
  recentColdStartsMs(): number[] {
    return this.coldStarts;
  }
  lastColdStart(): ColdStartPhases | undefined {
    return this.phases;
  }
}

function abortErr(signal: AbortSignal): Error {
  const timeout = (signal.reason as { name?: string })?.name === "TimeoutError";
  return timeout
    ? new CodedError("ERR_DEADLINE", "context deadline exceeded")
    : new CodedError("ERR_CANCELLED", "context canceled");
}

/** TEST DOUBLE coordinator holding FakeGates. */
export class FakeCoordinator implements Coordinator {
  gates = new Map<string, FakeGate>();
  listeners: ((k: RevisionKey, e: string[]) => void)[] = [];
  constructor(readonly clock: Clock) {}
  gate(key: RevisionKey, config: RevisionConfig): FakeGate {
    const id = `${key.namespace}/${key.name}`;
    let g = this.gates.get(id);
    if (!g) {
      g = new FakeGate(config.maxQueue, this.clock, (eps) => {
        for (const l of this.listeners) l(key, eps);
      });
      this.gates.set(id, g);
    }
    return g;
  }
  onEndpoints(listener: (k: RevisionKey, e: string[]) => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }
  close(): void {}
}

/** TEST DOUBLE reporter: records ins and outs. */
export class RecordingReporter implements RequestReporter {
  events: string[] = [];
  requestIn(key: RevisionKey): void {
    this.events.push(`in ${key.namespace}/${key.name}`);
  }
  requestOut(key: RevisionKey): void {
    this.events.push(`out ${key.namespace}/${key.name}`);
  }
}
