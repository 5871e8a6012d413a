/**
 * The Kubernetes `Probe` as Knative reads it. Field names are the JSON names of `corev1.Probe`.
 * Zero-valued scalars are left out, as Go's `omitempty` treats them as unset.
 */

/** A port given either as a number or as a string (a port name, or digits). */
export type IntOrString = number | string;

/** One extra header of an HTTP probe. */
export interface HttpHeader {
  name: string;
  value: string;
}

/** `httpGet` handler. */
export interface HttpGetAction {
  path?: string;
  port?: IntOrString;
  host?: string;
  scheme?: string;
  httpHeaders?: HttpHeader[];
}

/** `tcpSocket` handler. */
export interface TcpSocketAction {
  port?: IntOrString;
  host?: string;
}

/** `grpc` handler; `service` absent differs from `""` only before defaulting. */
export interface GrpcAction {
  port?: number;
  service?: string;
}

/** `exec` handler: kept for validation and rewriting, never run by the queue-proxy. */
export interface ExecAction {
  command?: string[];
}

/** A readiness, liveness or startup probe. */
export interface Probe {
  exec?: ExecAction;
  httpGet?: HttpGetAction;
  tcpSocket?: TcpSocketAction;
  grpc?: GrpcAction;
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

/** A container port, as in `corev1.ContainerPort` (only the fields probing needs). */
export interface ContainerPort {
  containerPort: number;
  name?: string;
  protocol?: string;
}

/** The parts of `corev1.Container` that probing reads and writes; other fields pass through untouched. */
export interface Container {
  name?: string;
  ports?: ContainerPort[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  [other: string]: unknown;
}

/** One problem with user input: where (a dotted field path) and what to do about it. */
export interface Issue {
  path: string;
  message: string;
  /** Extra explanation, rendered on its own line as Knative's FieldError details. */
  details?: string;
}

/** A value or the issues that stopped it. */
export type Result<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

/** The integer timing fields of a probe that Knative copies and Go encodes, in Go's key order. */
export const TIMING_FIELDS = [
  "initialDelaySeconds",
  "timeoutSeconds",
  "periodSeconds",
  "successThreshold",
  "failureThreshold",
] as const;

/** Every integer field of a probe: the timing fields and the termination grace period. */
export const SCALAR_FIELDS = [...TIMING_FIELDS, "terminationGracePeriodSeconds"] as const;

/** The names of the four probe handlers, in the order Knative dispatches them. */
export const HANDLER_NAMES = ["httpGet", "tcpSocket", "grpc", "exec"] as const;

/** One of the four probe handler names. */
export type HandlerName = (typeof HANDLER_NAMES)[number];

/** The handlers a probe sets, in dispatch order. */
export function handlersOf(probe: Probe): HandlerName[] {
  return HANDLER_NAMES.filter((h) => probe[h] !== undefined);
}
