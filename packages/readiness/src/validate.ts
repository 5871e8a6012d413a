import {
  type FieldError,
  fieldErrorsToIssues,
  issuesToFieldErrors,
  renderFieldErrors,
} from "./field-error.js";
import { DISALLOWED, parseProbe } from "./parse.js";
import { handlersOf, type IntOrString, type Probe, type Result, SCALAR_FIELDS } from "./types.js";

/** Which container of the revision is validated, and the feature flags that change the rules. */
export interface ValidateOptions {
  /** `serving` (default): the container that receives traffic; `sidecar`: any other; `init`: init containers. */
  role?: "serving" | "sidecar" | "init";
  /** Knative's `multi-container-probing` feature: sidecars may then carry probes of their own. */
  multiContainerProbing?: boolean;
}

const PROBE_KINDS = ["readinessProbe", "livenessProbe", "startupProbe"] as const;
const INT32_MAX = 2147483647;

/**
 * Validates the probes of one container as Knative's admission webhook does (knative-spec.md b.2). Returns
 * the errors, empty when the container is fine; `renderFieldErrors` turns them into Knative's exact text.
 */
export function validateContainerProbes(container: unknown, options: ValidateOptions = {}): FieldError[] {
  if (typeof container !== "object" || container === null || Array.isArray(container)) {
    return [{ message: "expected a container object", paths: [""] }];
  }
  const c = container as Record<string, unknown>;
  const role = options.role ?? "serving";
  const errors: FieldError[] = [];
  if (role === "init") {
    for (const f of [...PROBE_KINDS, "lifecycle"]) {
      if (c[f] !== undefined && c[f] !== null) {
        errors.push({ message: "field not allowed in an init container", paths: [f] });
      }
    }
    return errors;
  }
  const portName = servingPortName(c.ports);
  for (const kind of PROBE_KINDS) {
    if (c[kind] === undefined || c[kind] === null) continue;
    const parsed = parseProbe(c[kind], { path: kind });
    if (!parsed.ok) {
      errors.push(...issuesToFieldErrors(parsed.issues));
      continue;
    }
    const probe = parsed.value;
    if (role === "sidecar" && !options.multiContainerProbing) {
      errors.push(...disallowedProbe(probe, kind));
      continue;
    }
    errors.push(...handlerErrors(probe, kind, role === "serving" ? { portName } : { sidecar: true }));
    if (kind === "readinessProbe") errors.push(...readinessErrors(probe, kind));
  }
  return errors;
}

/** Validates one container and renders the result; `null` when valid (the form the vectors use). */
export function validateContainer(container: unknown, options: ValidateOptions = {}): string | null {
  const errors = validateContainerProbes(container, options);
  return errors.length === 0 ? null : renderFieldErrors(errors);
}

/** What a single probe is checked as. */
export interface ValidateProbeOptions {
  /** Which probe of the container (default `readiness`: the only one with the aggressive-mode rules). */
  kind?: "readiness" | "liveness" | "startup";
  /** Path prefix of issues (default `readinessProbe` etc.). */
  path?: string;
  /** The serving container's port name a string port must equal (default `http`). */
  portName?: string;
}

/**
 * Parses and validates one probe of the serving container (for configuration files that hold a bare
 * probe): the typed probe, or issues carrying Knative's messages and field paths.
 */
export function validateProbe(input: unknown, options: ValidateProbeOptions = {}): Result<Probe> {
  const kind = options.kind ?? "readiness";
  const path = options.path ?? `${kind}Probe`;
  const parsed = parseProbe(input, { path });
  if (!parsed.ok) return parsed;
  const errors = handlerErrors(parsed.value, path, { portName: options.portName ?? "http" });
  if (kind === "readiness") errors.push(...readinessErrors(parsed.value, path));
  return errors.length === 0 ? parsed : { ok: false, issues: fieldErrorsToIssues(errors) };
}

/** The name a string probe port must carry on the serving container: its port's name, else `http`. */
function servingPortName(ports: unknown): string {
  if (Array.isArray(ports) && ports.length > 0) {
    const name = (ports[0] as { name?: unknown } | null)?.name;
    if (typeof name === "string" && name !== "") return name;
  }
  return "http";
}

/** A sidecar without multi-container probing may carry no probe: flag the handler and each set field. */
function disallowedProbe(probe: Probe, path: string): FieldError[] {
  const paths: string[] = [];
  if (handlersOf(probe).length > 0) paths.push(path);
  for (const f of SCALAR_FIELDS) if (probe[f] !== undefined) paths.push(at(path, f));
  return paths.length > 0 ? [{ message: DISALLOWED, paths }] : [];
}

type PortRule = { portName: string } | { sidecar: true };

function handlerErrors(probe: Probe, path: string, rule: PortRule): FieldError[] {
  const set = handlersOf(probe);
  if (set.length === 0) {
    return [
      {
        message: "expected exactly one, got neither",
        paths: ["httpGet", "tcpSocket", "exec", "grpc"].map((h) => at(path, h)),
      },
    ];
  }
  if (set.length > 1)
    return [{ message: "expected exactly one, got both", paths: set.map((h) => at(path, h)) }];
  const errors: FieldError[] = [];
  for (const h of ["httpGet", "tcpSocket"] as const) {
    const action = probe[h];
    if (!action) continue;
    const e = portError(action.port, at(path, `${h}.port`), rule);
    if (e) errors.push(e);
  }
  return errors;
}

function portError(port: IntOrString | undefined, path: string, rule: PortRule): FieldError | undefined {
  if ("sidecar" in rule) {
    if (port === undefined || port === 0 || port === "") {
      return {
        message: `invalid value: ${port ?? 0}`,
        paths: [path],
        details: "Probe port must be specified",
      };
    }
    return undefined;
  }
  // A number is a TCP port (0 or none: the container's own, which Knative fills in); the API server
  // refuses anything outside 1-65535, and locally such a probe would fail until the timeout.
  if (typeof port === "number" && (port < 0 || port > 65535 || !Number.isInteger(port))) {
    return {
      message: `invalid value: ${port}`,
      paths: [path],
      details: "a probe port must be a TCP port, 1 to 65535 (or left out for the container's own port)",
    };
  }
  // Numeric ports may point anywhere; a named port must be the serving container's own port.
  if (typeof port === "string" && port !== rule.portName) {
    return {
      message: `invalid value: ${port}`,
      paths: [path],
      details: "Probe port must match container port",
    };
  }
  return undefined;
}

function at(path: string, field: string): string {
  return path === "" ? field : `${path}.${field}`;
}

function outOfBounds(value: number, lower: number, path: string): FieldError {
  return { message: `expected ${lower} <= ${value} <= ${INT32_MAX}`, paths: [path] };
}

/** The readiness-only timing rules; `periodSeconds: 0` selects Knative's aggressive probing. */
function readinessErrors(probe: Probe, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const period = probe.periodSeconds ?? 0;
  const timeout = probe.timeoutSeconds ?? 0;
  const failure = probe.failureThreshold ?? 0;
  const success = probe.successThreshold ?? 0;
  const delay = probe.initialDelaySeconds ?? 0;
  if (period < 0) errors.push(outOfBounds(period, 0, at(path, "periodSeconds")));
  if (delay < 0) errors.push(outOfBounds(delay, 0, at(path, "initialDelaySeconds")));
  if (success < 1) errors.push(outOfBounds(success, 1, at(path, "successThreshold")));
  if (period === 0) {
    if (failure !== 0) {
      errors.push({
        message: "failureThreshold is disallowed when periodSeconds is zero",
        paths: [at(path, "failureThreshold")],
      });
    }
    if (timeout !== 0) {
      errors.push({
        message: "timeoutSeconds is disallowed when periodSeconds is zero",
        paths: [at(path, "timeoutSeconds")],
      });
    }
  } else {
    if (timeout < 1) errors.push(outOfBounds(timeout, 1, at(path, "timeoutSeconds")));
    if (failure < 1) errors.push(outOfBounds(failure, 1, at(path, "failureThreshold")));
  }
  return errors;
}
