/** A revision's identity: Kubernetes namespace and revision name. */
export interface RevisionKey {
  namespace: string;
  name: string;
}

/** The map key used for a revision everywhere in the service: `namespace/name`. */
export function keyOf(rev: RevisionKey): string {
  return `${rev.namespace}/${rev.name}`;
}
