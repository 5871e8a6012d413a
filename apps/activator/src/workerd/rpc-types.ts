import type { ColdStartPhases, RevisionConfig, RevisionKey } from "../ports.js";

/** Identity, limits and pods, sent along with each call so a fresh object needs no extra round trip. */
export interface RevisionSetup {
  key: RevisionKey;
  config: RevisionConfig;
  endpoints: string[];
  /** Probe a bare app with `GET <path>` (any 2xx) instead of the queue-proxy's probe. */
  readinessPath?: string;
  /** The edge decider's autoscaling keys (thaw.config.yaml's `autoscaling:` block). */
  autoscaling?: Record<string, unknown>;
}

/** What the Worker gets back from `acquire`. */
export type AcquireResult =
  | { ok: true; leaseId: string; dest: string; snapshot: GateSnapshot }
  | { ok: false; code: string; message: string; snapshot: GateSnapshot };

/** Cached view of the revision that the Worker keeps between calls. */
export interface GateSnapshot {
  endpoints: string[];
  recentColdStartsMs: number[];
  lastColdStart: ColdStartPhases | undefined;
}

/** Result of `activate` (the 200 body of /v1/activate minus identity, or an error code). */
export type ActivateResult =
  | { ok: true; endpoints: string[]; coldStart: boolean; waitedMs: number }
  | { ok: false; code: string; message: string; detail?: string };

/** One revision's edge counters (GET /v1/status on the Worker). */
export interface RevisionStatus {
  namespace: string;
  name: string;
  queued: number;
  rejected: number;
  replayed: number;
  coldStarts: number;
  /** Wake-ups sent to the origin: /v1/activate calls (origin a) or scale webhooks asking for >= 1 (origin b). */
  wakes: number;
  recentColdStartsMs: number[];
  readyEndpoints: string[];
}
