/** Container env entries, shaped as the API server stores them. */

/** A plain variable. */
export function valueEnv(name: string, value: string): Record<string, unknown> {
  return { name, value };
}

/**
 * A downward-API variable. `apiVersion: v1` is written out because the server defaults it inside `fieldRef`,
 * an atomic struct: left out, a server-side apply after a client-side one (or Argo CD / Flux) conflicts with
 * the field manager that owns the defaulted value.
 */
export function fieldEnv(name: string, fieldPath: string): Record<string, unknown> {
  return { name, valueFrom: { fieldRef: { apiVersion: "v1", fieldPath } } };
}

/** A container port with its protocol written out (the server's default, part of the list's merge key). */
export function tcpPort(name: string, containerPort: number): Record<string, unknown> {
  return { name, containerPort, protocol: "TCP" };
}
