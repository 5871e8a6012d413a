import type { RevisionActivator } from "./revision-activator.js";

/** Bindings of the activator Worker (wrangler.jsonc). */
export interface WorkerEnv {
  REVISION_ACTIVATOR: DurableObjectNamespace<RevisionActivator>;
  /** JSON array of revisions (same shape as THAW_REVISIONS on Node). */
  REVISIONS: string;
  /** Bearer token for /v1/*; empty = open. */
  ACTIVATOR_TOKEN?: string;
  /** Called (POST JSON {namespace, name, minReplicas}) when a revision must wake up. */
  SCALER_WEBHOOK?: string;
  /** "true": run the KPA decider in each revision's Durable Object and POST {namespace, name, replicas} to SCALER_WEBHOOK. */
  EDGE_DECIDER?: string;
}
