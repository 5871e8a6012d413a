/** A revision as the hook names it: Knative's namespace and revision name. */
export interface RevisionRef {
  readonly namespace: string;
  readonly name: string;
}

/** The cache and single-flight key of a revision: `namespace/name`. */
export function revisionKey(ref: RevisionRef): string {
  return `${ref.namespace}/${ref.name}`;
}
