/** One problem with user input: where it is and what to do about it. */
export interface Issue {
  /** Field path, e.g. `stable-window` or `autoscaling.knative.dev/min-scale`. */
  path: string;
  message: string;
}

/** A parse that either produced a value or explains, per field, why it could not. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };
