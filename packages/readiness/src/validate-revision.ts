import type { FieldError } from "./field-error.js";

/** `config-defaults` bounds that revision validation reads; every field has Knative's default. */
export interface RevisionLimits {
  /** `max-revision-timeout-seconds` (600). */
  maxRevisionTimeoutSeconds?: number;
  /** `container-concurrency-max-limit` (1000). */
  containerConcurrencyMaxLimit?: number;
  /** `allow-container-concurrency-zero` (true): when false, 0 (unlimited) is refused. */
  allowContainerConcurrencyZero?: boolean;
}

/**
 * The revision-level bounds of Knative's webhook (knative-spec.md b.2): `timeoutSeconds` within
 * [0, max-revision-timeout-seconds] and `containerConcurrency` within [0 or 1, container-concurrency-max-limit].
 */
export function validateRevisionBounds(
  spec: { timeoutSeconds?: number; containerConcurrency?: number },
  limits: RevisionLimits = {},
): FieldError[] {
  const errors: FieldError[] = [];
  const maxTimeout = limits.maxRevisionTimeoutSeconds ?? 600;
  const t = spec.timeoutSeconds;
  if (t !== undefined && (t < 0 || t > maxTimeout)) {
    errors.push({ message: `expected 0 <= ${t} <= ${maxTimeout}`, paths: ["timeoutSeconds"] });
  }
  const cc = spec.containerConcurrency;
  const min = limits.allowContainerConcurrencyZero === false ? 1 : 0;
  const max = limits.containerConcurrencyMaxLimit ?? 1000;
  if (cc !== undefined && (cc < min || cc > max)) {
    errors.push({ message: `expected ${min} <= ${cc} <= ${max}`, paths: ["containerConcurrency"] });
  }
  return errors;
}
