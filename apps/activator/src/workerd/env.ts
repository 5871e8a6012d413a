import type { RevisionActivator } from "./revision-activator.js";

/** Bindings and vars of the activator Worker (wrangler.jsonc; CONTRACTS.md "Origins"). */
export interface WorkerEnv {
  REVISION_ACTIVATOR: DurableObjectNamespace<RevisionActivator>;
  /**
   * JSON array of revisions (the shape of THAW_REVISIONS on Node), plus, at the edge, an optional
   * `readinessPath` per revision: probe a bare app with a plain `GET <path>` instead of the queue probe.
   */
  REVISIONS: string;
  /** Bearer token for this Worker's /v1/*; empty = open (only reachable through a service binding). */
  ACTIVATOR_TOKEN?: string;
  /** Origin (a): a Thaw origin woken through its `POST /v1/activate` with THAW_ORIGIN_TOKEN. */
  THAW_ORIGIN_URL?: string;
  THAW_ORIGIN_TOKEN?: string;
  /** Origin (b): the signed scale webhook's receiver and shared secret (>= 16 characters). */
  SCALE_WEBHOOK_URL?: string;
  SCALE_WEBHOOK_SECRET?: string;
  /** "true": each revision's Durable Object runs the KPA decider and sends its decisions over the webhook. */
  EDGE_DECIDER?: string;
  /** Test suites only: "true" lets `advanceDeciderClock` move the decider's time. */
  THAW_TEST_CLOCK?: string;
}
