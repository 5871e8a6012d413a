import { type Clock, systemClock } from "@thaw/clock";
import { scaleRequest, sendScaleWebhook } from "@thaw/protocol";
import { keyOf, type RevisionKey } from "../revision.js";
import type { PodInfo, Scaler } from "./scaler.js";

/** One revision scaled through a webhook. */
export interface WebhookTarget extends RevisionKey {
  /** Receives the signed `thaw.scale/v1` POST (CONTRACTS.md, "Scale webhook"). */
  url: string;
  /** Extra headers for the receiver's own gateway (the signature headers are always set). */
  headers?: Readonly<Record<string, string>>;
  /** `host:port` of the revision's queue-proxies, known in advance (the activator probes them). */
  endpoints: readonly string[];
}

/** Options of {@link WebhookScaler}. */
export interface WebhookScalerOptions {
  /** The shared secret every request is signed with (HMAC-SHA256); at least 16 characters. */
  secret: string;
  fetch?: (req: Request) => Promise<Response>;
  clock?: Clock;
  /** Deadline of one try (default 10 s); failures are retried with backoff (@thaw/protocol's sender). */
  timeoutMs?: number;
  /** Pause before the first retry, doubled each time (default 200 ms). */
  backoffMs?: number;
}

interface Entry {
  target: WebhookTarget;
  desired: number;
  listeners: Set<(pods: PodInfo[]) => void>;
}

/**
 * Scales by telling someone else: each decision is the one signed scale webhook (`thaw.scale/v1`) POSTed
 * to the revision's URL (any platform's API behind a small adapter, or another Thaw's `/v1/scale`).
 * Endpoints are static; they count as ready while the last scale asked for is above zero.
 */
export class WebhookScaler implements Scaler {
  readonly #targets = new Map<string, Entry>();
  readonly #o: WebhookScalerOptions;

  constructor(options: WebhookScalerOptions) {
    this.#o = options;
  }

  /** Declares a revision and its webhook. */
  register(target: WebhookTarget): void {
    this.#targets.set(keyOf(target), { target, desired: 0, listeners: new Set() });
  }

  async scale(rev: RevisionKey, desired: number): Promise<void> {
    const e = this.#get(rev);
    const clock = this.#o.clock ?? systemClock;
    const extra = e.target.headers ?? {};
    const fetchFn = this.#o.fetch ?? ((r: Request) => fetch(r));
    await sendScaleWebhook({
      url: e.target.url,
      secret: this.#o.secret,
      request: scaleRequest(
        {
          namespace: rev.namespace,
          name: rev.name,
          desiredScale: desired,
          reason: `thaw-autoscaler: desired scale ${desired}`,
        },
        clock.now(),
      ),
      clock,
      timeoutMs: this.#o.timeoutMs ?? 10_000,
      ...(this.#o.backoffMs !== undefined ? { backoffMs: this.#o.backoffMs } : {}),
      fetch: (req) => {
        for (const [k, v] of Object.entries(extra)) if (!req.headers.has(k)) req.headers.set(k, v);
        return fetchFn(req);
      },
    });
    e.desired = desired;
    const pods = this.pods(rev);
    for (const l of e.listeners) l(pods);
  }

  pods(rev: RevisionKey): PodInfo[] {
    const e = this.#targets.get(keyOf(rev));
    if (!e) return [];
    return e.target.endpoints.map((address) => ({
      name: address,
      address,
      ready: e.desired > 0,
      startedAt: 0,
    }));
  }

  subscribe(rev: RevisionKey, onChange: (pods: PodInfo[]) => void): () => void {
    const e = this.#get(rev);
    e.listeners.add(onChange);
    return () => e.listeners.delete(onChange);
  }

  async close(): Promise<void> {
    for (const e of this.#targets.values()) e.listeners.clear();
  }

  #get(rev: RevisionKey): Entry {
    const e = this.#targets.get(keyOf(rev));
    if (!e) throw new Error(`revision ${keyOf(rev)} is not registered with the webhook scaler`);
    return e;
  }
}
