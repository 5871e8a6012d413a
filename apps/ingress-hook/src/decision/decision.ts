import type { RevisionId } from "@thaw/protocol";

/** Let the request through: to `upstream` (a ready pod, or the activator) when known. */
export interface Allow {
  readonly kind: "allow";
  readonly revision: RevisionId;
  readonly key: string;
  readonly upstream: string | undefined;
  /**
   * `activator`: the request must go through the activator (it was held while the revision was cold, or
   * the revision is in proxy mode), with the revision named in `Knative-Serving-Namespace`/`-Revision`;
   * its throttler then sends each pod no more than its capacity, in arrival order. `pod`: straight to
   * `upstream`, a ready pod.
   */
  readonly via: "pod" | "activator";
  /** True when answered from the warm cache with no activator call. */
  readonly warm: boolean;
}

/** Refuse the request with an HTTP status, an error code of the contract and a message for people. */
export interface Deny {
  readonly kind: "deny";
  readonly status: 400 | 404 | 503;
  readonly code: string;
  readonly message: string;
  readonly retryAfterSeconds?: number;
}

/** The revision is known but not warm: the caller must activate it (see IngressHook.decide). */
export interface Cold {
  readonly kind: "cold";
  readonly revision: RevisionId;
  readonly key: string;
}

/** What the hook answers for a request. */
export type Decision = Allow | Deny;
