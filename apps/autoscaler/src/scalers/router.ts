import { keyOf, type RevisionKey } from "../revision.js";
import type { PodInfo, Scaler } from "./scaler.js";

/** One Scaler port over several scalers: each revision is routed to the scaler that runs it. */
export class ScalerRouter implements Scaler {
  readonly #routes = new Map<string, Scaler>();

  /** Sends every call for `rev` to `scaler`. */
  route(rev: RevisionKey, scaler: Scaler): void {
    this.#routes.set(keyOf(rev), scaler);
  }

  scale(rev: RevisionKey, desired: number): Promise<void> {
    return this.#get(rev).scale(rev, desired);
  }

  replicas(rev: RevisionKey): number | undefined {
    return this.#routes.get(keyOf(rev))?.replicas?.(rev);
  }

  pods(rev: RevisionKey): PodInfo[] {
    return this.#routes.get(keyOf(rev))?.pods(rev) ?? [];
  }

  subscribe(rev: RevisionKey, onChange: (pods: PodInfo[]) => void): () => void {
    return this.#get(rev).subscribe(rev, onChange);
  }

  async close(): Promise<void> {
    await Promise.all([...new Set(this.#routes.values())].map((s) => s.close()));
  }

  #get(rev: RevisionKey): Scaler {
    const s = this.#routes.get(keyOf(rev));
    if (!s) throw new Error(`no scaler runs revision ${keyOf(rev)}`);
    return s;
  }
}
