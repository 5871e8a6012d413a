import type { RevisionId } from "@thaw/protocol";

/** Let the request through: to `upstream` (a ready pod, or the activator in proxy mode) when known. */
export interface Allow {
  readonly kind: "allow";
  readonly revision: RevisionId;
  readonly key: string;
  readonly upstream: string | undefined;
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
