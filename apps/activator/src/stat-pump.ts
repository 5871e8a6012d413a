import type { Clock, TimerHandle } from "@thaw/clock";
import type { WireStatMessage } from "@thaw/protocol";
import { type Logger, type StatSink, silentLogger } from "./ports.js";

/** Carries one encoded `WireStatMessages` to the autoscaler; rejects when it could not. */
export interface StatTransport {
  send(bytes: Uint8Array): Promise<void>;
  /** One text frame (a FirstByteNote), where the link has them (the websocket); absent: notes are dropped. */
  sendText?(text: string): Promise<void>;
  close?(): void;
}

/** How the pump is wired. */
export interface StatPumpOptions {
  clock: Clock;
  transport: StatTransport;
  /** @thaw/protocol's `encodeWireStatMessages`. */
  encode: (messages: readonly WireStatMessage[]) => Uint8Array;
  logger?: Logger;
  /** Batches kept while the autoscaler is unreachable; the oldest go first. Default 30 (30 s of reports). */
  maxPending?: number;
  /** First reconnect delay, doubled up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * A stat sink that never blocks: `send` queues the batch (bounded) and returns; a background loop ships
 * batches in order and, when the transport fails, retries with exponential backoff.
 */
export class StatPump implements StatSink {
  readonly #o: Required<Omit<StatPumpOptions, "logger">> & { logger: Logger };
  #queue: (Uint8Array | string)[] = [];
  #busy = false;
  #retry: TimerHandle | undefined;
  #backoff: number;
  #ok = true;
  #lastError = "";
  #dropped = 0;
  #failures = 0;
  #reconnects = 0;
  #closed = false;

  constructor(opts: StatPumpOptions) {
    this.#o = { maxPending: 30, backoffMs: 100, maxBackoffMs: 5000, logger: silentLogger, ...opts };
    this.#backoff = this.#o.backoffMs;
  }

  send(messages: WireStatMessage[]): void {
    if (this.#closed || messages.length === 0) return;
    this.#enqueue(this.#o.encode(messages));
  }

  /** Queues one text frame behind the stats sent before it; dropped where the transport has none. */
  note(text: string): void {
    if (this.#closed || !this.#o.transport.sendText) return;
    this.#enqueue(text);
  }

  #enqueue(item: Uint8Array | string): void {
    this.#queue.push(item);
    while (this.#queue.length > this.#o.maxPending) {
      this.#queue.shift();
      this.#dropped++;
    }
    if (this.#retry === undefined) void this.#flush();
  }

  /** Healthy while the last attempt succeeded (the kubelet probe of a Knative activator reads this). */
  health(): { ok: true } | { ok: false; reason: string } {
    return this.#ok ? { ok: true } : { ok: false, reason: `stats connection: ${this.#lastError}` };
  }

  /** Batches dropped because the queue was full. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Sends that failed (each one starts a backoff). */
  get failures(): number {
    return this.#failures;
  }

  /** Times the link came back: a send succeeded after one or more failed. */
  get reconnects(): number {
    return this.#reconnects;
  }

  /** Batches waiting to be sent. */
  get pending(): number {
    return this.#queue.length;
  }

  close(): void {
    this.#closed = true;
    if (this.#retry !== undefined) this.#o.clock.clearTimeout(this.#retry);
    this.#o.transport.close?.();
  }

  async #flush(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      while (this.#queue.length > 0 && !this.#closed) {
        const next = this.#queue[0] as Uint8Array | string;
        try {
          const t = this.#o.transport;
          await (typeof next === "string" ? t.sendText?.(next) : t.send(next));
        } catch (err) {
          this.#ok = false;
          this.#failures++;
          this.#lastError = err instanceof Error ? err.message : String(err);
          this.#o.logger.warn("stats send failed", { error: this.#lastError, retryInMs: this.#backoff });
          this.#retry = this.#o.clock.setTimeout(() => {
            this.#retry = undefined;
            void this.#flush();
          }, this.#backoff);
          this.#backoff = Math.min(this.#o.maxBackoffMs, this.#backoff * 2);
          return;
        }
        if (this.#queue[0] === next) this.#queue.shift();
        if (!this.#ok) this.#reconnects++;
        this.#ok = true;
        this.#backoff = this.#o.backoffMs;
      }
    } finally {
      this.#busy = false;
    }
  }
}

/** `POST <base>/v1/stats` with an `application/protobuf` body, over any fetch. */
export function httpStatTransport(baseUrl: string, fetchFn: typeof fetch, token?: string): StatTransport {
  const url = `${baseUrl.replace(/\/+$/, "")}/v1/stats`;
  return {
    async send(bytes) {
      const headers: Record<string, string> = { "content-type": "application/protobuf" };
      if (token) headers.authorization = `Bearer ${token}`;
      const res = await fetchFn(url, { method: "POST", headers, body: bytes });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`POST ${url}: ${res.status}`);
    },
  };
}
