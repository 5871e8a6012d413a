import { keyOf, type RevisionKey } from "../revision.js";
import type { PodInfo, Scaler } from "./scaler.js";

/** One revision scaled through a webhook. */
export interface WebhookTarget extends RevisionKey {
  /** Receives `POST {namespace, name, desiredScale}` as JSON. */
  url: string;
  headers?: Readonly<Record<string, string>>;
  /** `host:port` of the revision's queue-proxies, known in advance (the activator probes them). */
  endpoints: readonly string[];
}

/** Options of {@link WebhookScaler}. */
export interface WebhookScalerOptions {
  fetch?: (req: Request) => Promise<Response>;
  /** Per-call deadline (default 10 s). */
  timeoutMs?: number;
}

interface Entry {
  target: WebhookTarget;
  desired: number;
  listeners: Set<(pods: PodInfo[]) => void>;
}

/**
 * Scales by telling someone else: each decision is a JSON POST of `{namespace, name, desiredScale}` to the
 * revision's URL (any platform's API behind a small adapter). Endpoints are static; they count as ready
 * while the last scale asked for is above zero.
 */
export class WebhookScaler implements Scaler {
  readonly #targets = new Map<string, Entry>();
  readonly #fetch: (req: Request) => Promise<Response>;
  readonly #timeoutMs: number;

  constructor(options: WebhookScalerOptions = {}) {
    this.#fetch = options.fetch ?? ((r) => fetch(r));
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Declares a revision and its webhook. */
  register(target: WebhookTarget): void {
    this.#targets.set(keyOf(target), { target, desired: 0, listeners: new Set() });
  }

  async scale(rev: RevisionKey, desired: number): Promise<void> {
    const e = this.#get(rev);
    const headers = new Headers(e.target.headers);
    headers.set("content-type", "application/json");
    const res = await this.#fetch(
      new Request(e.target.url, {
        method: "POST",
        headers,
        body: JSON.stringify({ namespace: rev.namespace, name: rev.name, desiredScale: desired }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      }),
    );
    await res.body?.cancel();
    if (!res.ok)
      throw new Error(`webhook ${e.target.url} answered ${res.status} for desiredScale ${desired}`);
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
