/** The labels a container carries to be served by Thaw without a `services:` entry (docs/containers.md). */
export const THAW_LABELS = {
  enable: "thaw.enable",
  service: "thaw.service",
  hosts: "thaw.hosts",
  port: "thaw.port",
  concurrency: "thaw.concurrency",
  queueProxy: "thaw.queue-proxy",
  queueProxyImage: "thaw.queue-proxy-image",
} as const;

/** Compose's labels on the containers it makes: project, service, and which replica of it. */
export const COMPOSE_LABELS = {
  project: "com.docker.compose.project",
  service: "com.docker.compose.service",
  number: "com.docker.compose.container-number",
} as const;

/**
 * Why a container Compose made as replica 2, 3, ... of a service (`--scale`, `deploy.replicas`) is not a
 * service of its own: Thaw serves replica 1 and makes the others itself. Undefined for any other container.
 */
export function composeReplicaProblem(labels: Readonly<Record<string, string>>): string | undefined {
  const service = labels[COMPOSE_LABELS.service];
  const n = labels[COMPOSE_LABELS.number];
  if (service === undefined || n === undefined || n === "1") return undefined;
  return (
    `replica ${n} Compose made of service ${service} (--scale or deploy.replicas): Thaw serves replica 1 and ` +
    `makes the others itself; scale it to 1 (docker compose up -d --scale ${service}=1)`
  );
}

/** Knative's autoscaling annotations, taken as labels with the same keys and values. */
const AUTOSCALING = "autoscaling.knative.dev/";
/** Labels Thaw writes on its own copies of a container (replica.ts): allowed, never read here. */
const THAW_OWN = ["thaw.replica-of", "thaw.replica"];

/** A service entry built from a container's labels, and the label behind each of its fields. */
export interface LabelledService {
  /** A `services:` entry, still to be validated by the config schema. */
  service: Record<string, unknown>;
  /** The label a field path under the entry came from (`containerConcurrency` → `thaw.concurrency`). */
  labelOf(path: string): string;
  /** Problems found before the schema runs (unknown or missing labels): label and message. */
  problems: { label: string; message: string }[];
}

/** A label value that is a number as a number, else unchanged (the schema then says what is wrong). */
function numeric(s: string | undefined): string | number | undefined {
  return s !== undefined && /^-?\d+(\.\d+)?$/.test(s.trim()) ? Number(s) : s;
}

/**
 * The service a container's labels describe: `thaw.service` (default: its Compose service, else its name),
 * `thaw.hosts` (comma-separated), `thaw.port` (default: its only exposed port), `thaw.concurrency`, and
 * `autoscaling.knative.dev/*`. The container is named in the entry, on `socket`.
 */
export function serviceFromLabels(c: {
  name: string;
  labels: Readonly<Record<string, string>>;
  exposed: readonly number[];
  socket: string;
}): LabelledService {
  const l = c.labels;
  const problems: LabelledService["problems"] = [];
  const known = new Set<string>([...Object.values(THAW_LABELS), ...THAW_OWN]);
  for (const key of Object.keys(l)) {
    if (key.startsWith("thaw.") && !known.has(key)) {
      problems.push({
        label: key,
        message: `unknown label; Thaw reads ${[...Object.values(THAW_LABELS)].join(", ")} and ${AUTOSCALING}*`,
      });
    }
  }
  const hosts = l[THAW_LABELS.hosts];
  if (hosts === undefined) {
    problems.push({
      label: THAW_LABELS.hosts,
      message:
        "is required: the host names the service answers on, comma-separated, e.g. thaw.hosts=web.localhost",
    });
  }
  let port = numeric(l[THAW_LABELS.port]);
  if (port === undefined && c.exposed.length === 1) port = c.exposed[0];
  if (port === undefined) {
    problems.push({
      label: THAW_LABELS.port,
      message:
        "is required (the container exposes no single port): the port the app listens on inside the container, e.g. thaw.port=8080",
    });
  }
  const autoscaling = Object.fromEntries(Object.entries(l).filter(([k]) => k.startsWith(AUTOSCALING)));
  const concurrency = numeric(l[THAW_LABELS.concurrency]);
  const service: Record<string, unknown> = {
    name: l[THAW_LABELS.service] ?? l[COMPOSE_LABELS.service] ?? c.name,
    hosts: (hosts ?? "")
      .split(",")
      .map((h) => h.trim())
      .filter(Boolean),
    ...(concurrency !== undefined ? { containerConcurrency: concurrency } : {}),
    autoscaling,
    container: {
      name: c.name,
      port: port ?? 8080,
      socket: c.socket,
      ...(l[THAW_LABELS.queueProxy] !== undefined ? { queueProxy: l[THAW_LABELS.queueProxy] } : {}),
      ...(l[THAW_LABELS.queueProxyImage] !== undefined
        ? { queueProxyImage: l[THAW_LABELS.queueProxyImage] }
        : {}),
    },
  };
  const labelOf = (path: string): string => {
    if (path === "name") return THAW_LABELS.service;
    if (path === "hosts" || path.startsWith("hosts[")) return THAW_LABELS.hosts;
    if (path === "containerConcurrency") return THAW_LABELS.concurrency;
    if (path === "container.port") return THAW_LABELS.port;
    if (path === "container.queueProxy") return THAW_LABELS.queueProxy;
    if (path === "container.queueProxyImage") return THAW_LABELS.queueProxyImage;
    const m = /^autoscaling(?:\.|\[")(.*?)(?:"\])?$/.exec(path);
    if (m?.[1]) return m[1].startsWith(AUTOSCALING) ? m[1] : `${AUTOSCALING}${m[1]}`;
    return path;
  };
  return { service, labelOf, problems };
}
