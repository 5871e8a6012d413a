// The one module it needs, not the package root: `thaw validate` starts faster (apps/cli/bench/startup.mjs).
import { MAX_WARM_TTL_SECONDS } from "@thaw/protocol/activation-api";
import { parseAddressRange } from "@thaw/protocol/address-range";
import * as v from "valibot";
import { parseDurationMs } from "./duration.js";
import { annotations, labels } from "./k8s-metadata.js";

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const HOST = /^[a-z0-9.*-]+(:\d{1,5})?$/i;
const HOST_PORT = /^[^\s:]+:\d{1,5}$/;

function int(min: number, max: number, fix: string) {
  return v.pipe(
    v.number("must be a number"),
    v.integer(`must be a whole number; ${fix}`),
    v.minValue(min, `must be >= ${min}; ${fix}`),
    v.maxValue(max, `must be <= ${max}; ${fix}`),
  );
}

function strict<T extends v.ObjectEntries>(entries: T) {
  const allowed = Object.keys(entries).join(", ");
  return v.strictObject(entries, (issue) =>
    issue.expected === "never"
      ? `unknown field; allowed here: ${allowed}`
      : `must be a mapping with the fields ${allowed}`,
  );
}

const name = v.pipe(
  v.string("must be a string"),
  v.regex(DNS_LABEL, "must be a DNS label: lower-case letters, digits and '-', at most 63 characters"),
);

const duration = v.pipe(
  v.union([v.string(), v.number()], "must be a duration such as 30s, 1m30s or 250ms"),
  v.check((d) => parseDurationMs(d) !== undefined, "must be a duration such as 30s, 1m30s or 250ms"),
);

/** Knative config-autoscaler keys / annotation keys: validated in depth by @thaw/autoscaler. */
const knativeKeys = v.record(
  v.string(),
  v.union([v.string(), v.number(), v.boolean()], "must be a string, a number or true/false"),
  "must be a mapping of Knative autoscaling keys to values",
);

/**
 * A queue-proxy of the user's choosing. It gets Knative's environment only, so it reads its serving port from
 * QUEUE_SERVING_PORT and binds the admin and metrics ports it was built with (Knative's: 8022 and 9090).
 */
const queueProxy = strict({
  command: v.pipe(
    v.array(v.string("each argument must be a string"), "must be a list such as [/usr/local/bin/queue]"),
    v.minLength(1, "must name the queue-proxy program to start, e.g. [/usr/local/bin/queue]"),
  ),
  adminPort: v.optional(int(1, 65535, "the admin port the queue-proxy binds (Knative's 8022)"), 8022),
  metricsPort: v.optional(int(1, 65535, "the port of its protobuf Stat (Knative's 9090)"), 9090),
});

const run = strict({
  command: v.pipe(
    v.array(v.string("each argument must be a string"), "must be a list such as [node, server.js]"),
    v.minLength(1, "must name the program to start, e.g. [node, server.js]"),
  ),
  env: v.optional(v.record(v.string(), v.string('must be a string; quote numbers, e.g. "800"')), {}),
  cwd: v.optional(v.string()),
  portEnv: v.optional(
    v.pipe(v.string(), v.regex(/^[A-Z_][A-Z0-9_]*$/, "must be an environment variable name")),
    "PORT",
  ),
  servingPort: v.optional(int(1, 65535, "the queue-proxy's fixed serving port; at most one pod then runs")),
  // Any Knative-compatible queue-proxy (Knative's own binary included): started with Knative's env only.
  queueProxy: v.optional(queueProxy),
});

const quantity = v.union(
  [
    v.pipe(
      v.string(),
      v.regex(/^\d+(\.\d+)?([mkMGTPE]|[KMGTPE]i)?$/, "must be a Kubernetes quantity such as 100m, 1, 128Mi"),
    ),
    v.number(),
  ],
  "must be a Kubernetes quantity such as 100m, 1, 128Mi",
);
const resourceList = strict({ cpu: v.optional(quantity), memory: v.optional(quantity) });
const resources = strict({ requests: v.optional(resourceList), limits: v.optional(resourceList) });

const kubernetes = strict({
  deployment: name,
  namespace: v.optional(name),
  kubeconfig: v.optional(v.string()),
  /** Service whose EndpointSlices list the pods; default: the Deployment's name. */
  service: v.optional(name),
  portName: v.optional(
    v.pipe(
      v.string("must be a string"),
      v.regex(
        /^(?=.*[a-z])[a-z0-9]([-a-z0-9]{0,13}[a-z0-9])?$/,
        "must be a Kubernetes port name: at most 15 lower-case letters, digits and '-', with a letter, e.g. http",
      ),
    ),
    "http",
  ),
  /** The queue-proxy's metrics port on each pod (Knative's 9090). */
  metricsPort: v.optional(int(1, 65_535, "the queue-proxy's metrics port, e.g. 9090"), 9090),
  // What `thaw k8s render` puts into the pod; the scaler ignores these.
  image: v.optional(v.pipe(v.string(), v.minLength(1, "must name an image, e.g. ghcr.io/you/app:1.0"))),
  containerPort: v.optional(int(1, 65535, "the port the app listens on (Knative's default 8080)"), 8080),
  command: v.optional(v.array(v.string("each argument must be a string"))),
  args: v.optional(v.array(v.string("each argument must be a string"))),
  env: v.optional(v.record(v.string(), v.string('must be a string; quote numbers, e.g. "800"')), {}),
  resources: v.optional(resources),
  queueProxyResources: v.optional(resources),
  runAsUser: v.optional(int(1, 2_147_483_647, "a non-root user id; the image's USER is used when unset")),
  readOnlyRootFilesystem: v.optional(v.boolean("must be true or false"), true),
  maxUnavailable: v.optional(
    int(1, 1000, "pods a voluntary disruption may take at once (PodDisruptionBudget)"),
    1,
  ),
  labels: v.optional(labels, {}),
  annotations: v.optional(annotations, {}),
});

const webhook = strict({
  url: v.pipe(v.string(), v.url("must be an absolute URL such as https://scaler.example/scale")),
  endpoints: v.optional(
    v.array(v.pipe(v.string(), v.regex(HOST_PORT, "must be host:port, e.g. 10.0.0.7:8012"))),
    [],
  ),
  headers: v.optional(v.record(v.string(), v.string()), {}),
});

/**
 * A container the engine already has (created by `podman create`, `docker create` or Compose), started on a
 * cold request and stopped at scale to zero through the Docker Engine API (docs/containers.md).
 */
const socketPath = v.pipe(
  v.string("must be a path"),
  v.startsWith("/", "must be an absolute path such as /run/podman/podman.sock"),
);
const container = strict({
  name: v.pipe(
    v.string("must be the container's name"),
    v.regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/, "must be a container name such as hello or app-web-1"),
  ),
  port: int(1, 65535, "the port the app listens on inside the container, e.g. 8080"),
  socket: v.optional(socketPath),
  // Where each replica's queue-proxy runs: a host process (the default) or a container of its own beside the
  // app's, in the app container's network namespace, as in a Kubernetes pod (docs/containers.md).
  queueProxy: v.optional(
    v.picklist(
      ["process", "container"],
      "must be process (a host process, the default) or container (a container beside the app's, as in a Kubernetes pod)",
    ),
    "process",
  ),
  // The image of that container; default Thaw's own, as `npm run images` builds it.
  queueProxyImage: v.optional(
    v.pipe(
      v.string("must be an image reference"),
      v.regex(/^[a-z0-9][^\s]*$/, "must be an image reference such as localhost/thaw/queue-proxy:0.1.0"),
    ),
  ),
});

/**
 * A time window with its own min-scale (like KEDA's cron scaler): open from each `start` until `end` fires or
 * `duration` passes. Crons and ranges are checked in depth by @thaw/autoscaler (schedules.ts).
 */
const scheduleWindow = strict({
  // Shown on the dashboard and in scale reasons; default schedules[j].
  name: v.optional(v.string("must be a string")),
  // IANA time zone the crons are read in, e.g. Europe/Paris; UTC by default. Daylight-saving changes move
  // the window with the local clock.
  timezone: v.optional(v.string("must be an IANA time zone such as Europe/Paris")),
  // Five-field cron (minute hour day-of-month month day-of-week) at which the window opens, e.g. "0 8 * * mon-fri".
  start: v.string('must be a cron expression in quotes, e.g. "0 8 * * mon-fri"'),
  // Cron at which the window closes, e.g. "0 18 * * mon-fri"; give this or duration.
  end: v.optional(v.string('must be a cron expression in quotes, e.g. "0 18 * * mon-fri"')),
  // How long the window stays open after each start, e.g. 10h; give this or end.
  duration: v.optional(v.string("must be a duration such as 90m or 10h")),
  // Pods kept ready while the window is open (1 up to max-scale); the decider may still ask for more.
  minScale: v.number("must be a whole number ≥ 1"),
});
// waitingPage (docs/waiting-page.md):
// A page for people: a browser's GET or HEAD (its Accept prefers text/html) held while the service starts
// gets, after `after`, a small page that shows the expected start, follows it and reloads once ready.
// Other clients and methods are held as before.
const waitingPage = strict({
  // false: browsers are held like every other client.
  enabled: v.optional(v.boolean("must be true or false"), true),
  // How long a browser's request is held before the page is shown instead (a start faster than this never
  // shows it).
  after: v.optional(duration, "2s"),
  // An HTML file (relative to thaw.config.yaml) to show instead of the built-in page, with {{service}},
  // {{namespace}}, {{expected}}, {{retryAfter}}, {{refresh}} and {{script}} placeholders; thaw validate
  // refuses one that does not parse or names another placeholder.
  template: v.optional(
    v.pipe(v.string("must be a file path"), v.minLength(1, "must name an HTML file, e.g. waiting.html")),
  ),
});

const service = v.pipe(
  strict({
    name,
    namespace: v.optional(name, "default"),
    hosts: v.optional(
      v.array(
        v.pipe(
          v.string("must be a host name such as hello.localhost"),
          v.regex(HOST, "must be a host name such as hello.localhost"),
        ),
        "expected a list of host names, e.g. [hello.localhost]",
      ),
      [],
    ),
    paths: v.optional(
      v.array(
        v.pipe(
          v.string("must be a path prefix starting with /"),
          v.startsWith("/", "must be a path prefix starting with /"),
        ),
        "expected a list of path prefixes, e.g. [/api]",
      ),
      [],
    ),
    containerConcurrency: v.optional(int(0, 1000, "0 means unlimited"), 0),
    timeoutSeconds: v.optional(int(1, 600, "Knative allows 1..600 seconds"), 300),
    responseStartTimeoutSeconds: v.optional(int(0, 600, "0 turns it off")),
    idleTimeoutSeconds: v.optional(int(0, 600, "0 turns it off")),
    maxQueue: v.optional(int(1, 1_000_000, "requests held per revision while it has no capacity"), 10_000),
    bodyBufferBytes: v.optional(int(0, 64 * 1024 * 1024, "0 turns body replay off"), 1024 * 1024),
    // Knative's container port name: h2c makes the queue-proxy speak HTTP/2 cleartext to the app (gRPC);
    // http1 (the default) sends every request as HTTP/1.1, whatever the client spoke.
    containerPortName: v.optional(
      v.picklist(
        ["http1", "h2c"],
        "must be http1 or h2c (Knative's container port names; h2c for an app that speaks HTTP/2 cleartext, e.g. gRPC)",
      ),
      "http1",
    ),
    // Shape only here; Knative's probe rules run through @thaw/readiness (readiness.ts).
    readinessProbe: v.optional(v.record(v.string(), v.unknown(), "must be a Kubernetes Probe mapping")),
    autoscaling: v.optional(knativeKeys, {}),
    // Time windows that keep pods ready before load arrives; effective min-scale = max(min-scale, the open
    // window's minScale). One service's windows must not overlap.
    schedules: v.optional(v.array(scheduleWindow, "must be a list of windows"), []),
    run: v.optional(run),
    kubernetes: v.optional(kubernetes),
    webhook: v.optional(webhook),
    waitingPage: v.optional(waitingPage, {}),
    container: v.optional(container),
  }),
  v.check(
    (s) => [s.run, s.kubernetes, s.webhook, s.container].filter(Boolean).length === 1,
    "needs exactly one of run (local processes), container, kubernetes or webhook",
  ),
);

/** The schema of thaw.config.yaml (DESIGN.md contract 3). */
export const configSchema = strict({
  listen: v.optional(
    v.pipe(
      v.string("must be host:port, e.g. 127.0.0.1:8080"),
      v.regex(HOST_PORT, "must be host:port, e.g. 127.0.0.1:8080"),
    ),
    "127.0.0.1:8080",
  ),
  token: v.optional(v.pipe(v.string(), v.minLength(16, "must be at least 16 characters"))),
  autoscaler: v.optional(knativeKeys, {}),
  // Addresses of the proxies whose X-Forwarded-*/Forwarded the gateway keeps (appending the peer); nobody
  // by default, so a client's own values are replaced.
  trustedProxies: v.optional(
    v.array(
      v.pipe(
        v.string("must be an IP address or CIDR range such as 10.0.0.0/8"),
        v.rawCheck(({ dataset, addIssue }) => {
          if (!dataset.typed) return;
          const r = parseAddressRange(dataset.value);
          if (!r.ok) addIssue({ message: r.error });
        }),
      ),
      "must be a list of IP addresses or CIDR ranges, e.g. [10.0.0.0/8, 127.0.0.1]",
    ),
    [],
  ),
  // No default: `thaw up` skips the quiet period (its gateway stops routing to a pod before stopping it),
  // thaw-autoscaler's local pods use Knative's 30 s.
  drain: v.optional(strict({ quietPeriod: v.optional(duration) }), {}),
  // `thaw up`'s gateway: time for a client to send a request head (slowloris) or a new connection's first
  // byte; Knative's one minute by default.
  headersTimeout: v.optional(duration),
  // `thaw up`'s gateway: a websocket (upgrade) tunnel with no byte either way for this long is closed; 5m
  // by default.
  tunnelIdleTimeout: v.optional(duration),
  // The bytes all request bodies kept for a replay may use together (each one up to its service's
  // bodyBufferBytes): per revision and per process. A body that does not fit streams once. No default here:
  // @thaw/activation's DEFAULT_BODY_BUDGET (16 MiB and 64 MiB) applies when unset.
  bodyBufferRevisionBytes: v.optional(
    int(0, 1024 * 1024 * 1024, "bytes of held bodies per revision; 0 turns body replay off"),
  ),
  bodyBufferProcessBytes: v.optional(
    int(0, 4 * 1024 * 1024 * 1024, "bytes of held bodies per process; 0 turns body replay off"),
  ),
  // thaw-simulate's own settings (its --help documents them); `thaw up` ignores them.
  simulate: v.optional(
    strict({
      startupDelay: v.optional(duration),
      tick: v.optional(duration),
      initialReplicas: v.optional(int(0, 10_000, "ready pods at time 0 of the simulation")),
      // Wall-clock instant of trace time 0 (ISO 8601, e.g. 2026-12-07T06:00:00Z), for the services' schedules.
      start: v.optional(
        v.pipe(
          v.string("must be an ISO 8601 instant such as 2026-12-07T06:00:00Z"),
          v.check(
            (t) => Number.isFinite(Date.parse(t)),
            "must be an ISO 8601 instant such as 2026-12-07T06:00:00Z",
          ),
        ),
      ),
    }),
  ),
  // Wake hints: a request on `path` keeps `services` at ≥ 1 pod for `ttlSeconds` (e.g. a login page warming
  // the API behind it), sent by the hook and the Workers middleware without holding the request.
  warm: v.optional(
    v.array(
      strict({
        // Path prefix that sends the hint, e.g. /login.
        path: v.pipe(
          v.string("must be a path prefix starting with /"),
          v.startsWith("/", "must be a path prefix starting with /, e.g. /login"),
        ),
        // Host names the path is matched on; every host when empty.
        hosts: v.optional(v.array(v.string("must be a host name such as app.localhost")), []),
        // Services to warm, by name (namespace/name when not in default).
        services: v.pipe(
          v.array(v.string("must be a service name"), "must be a list of service names, e.g. [api]"),
          v.minLength(1, "must name at least one service to warm, e.g. [api]"),
        ),
        // How long each hint keeps the services warm, 1..3600 seconds; a later hint extends it.
        ttlSeconds: int(1, MAX_WARM_TTL_SECONDS, "seconds the services stay at ≥ 1 pod after the hint"),
      }),
      "must be a list such as [{path: /login, services: [api], ttlSeconds: 300}]",
    ),
    [],
  ),
  // Containers labelled thaw.enable=true on this engine are served as services too (docs/containers.md).
  containers: v.optional(
    strict({
      // Read the engine's containers for thaw.* labels when `thaw up` starts.
      discover: v.optional(v.boolean("must be true or false"), true),
      // The engine socket; default DOCKER_HOST, else Podman's, else Docker's.
      socket: v.optional(socketPath),
    }),
  ),
  // At least one, unless containers.discover finds them (parse.ts checks).
  services: v.optional(v.array(service, "must be a list of services"), []),
});

/** thaw.config.yaml after defaults were applied. */
export type ThawConfig = v.InferOutput<typeof configSchema>;
/** One entry of `services`. */
export type ServiceConfig = ThawConfig["services"][number];
