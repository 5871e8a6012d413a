/** What a key of thaw.config.yaml means, for docs/config.md: one line, and its Knative counterpart. */
export interface KeyDoc {
  text: string;
  /** The Knative Serving field, annotation or config-map key this stands for. */
  knative?: string;
}

/**
 * One entry per key of schema.ts, by dotted path (`services[]` for each list entry). A key added to the schema
 * needs a line here: src/node/reference.test.ts names the ones missing.
 */
export const KEY_DOCS: Readonly<Record<string, KeyDoc>> = {
  listen: { text: "Where `thaw up`'s gateway listens (host:port; port 0 picks a free one)." },
  token: {
    text: "Bearer token every internal endpoint requires (at least 16 characters); without one they answer loopback only.",
  },
  autoscaler: {
    text: "Cluster-wide autoscaler defaults, Knative's keys and values (e.g. `stable-window: 60s`).",
    knative: "ConfigMap config-autoscaler",
  },
  trustedProxies: {
    text: "IP addresses or CIDR ranges of proxies whose `X-Forwarded-*`/`Forwarded` the gateway keeps; nobody by default.",
  },
  drain: { text: "How pods are drained before they stop." },
  "drain.quietPeriod": {
    text: "Time a pod keeps serving after it is told to drain; `thaw up` skips it (its gateway stops routing first), thaw-autoscaler's local pods wait 30s.",
    knative: "queue-proxy drain (30s)",
  },
  headersTimeout: {
    text: "`thaw up`'s gateway: time a client has to send a request head or a new connection's first byte (1m when unset).",
  },
  tunnelIdleTimeout: {
    text: "`thaw up`'s gateway: a websocket tunnel with no byte either way for this long is closed (5m when unset).",
  },
  bodyBufferRevisionBytes: {
    text: "All request bodies one revision keeps for a replay at once (each up to its `bodyBufferBytes`); a body that does not fit streams once, unreplayable. 16 MiB when unset.",
  },
  bodyBufferProcessBytes: {
    text: "All request bodies the gateway and activator keep for a replay at once, every revision together; a body that does not fit streams once. 64 MiB when unset.",
  },
  simulate: { text: "thaw-simulate's own settings (see `thaw-simulate --help`); `thaw up` ignores them." },
  "simulate.startupDelay": { text: "Time a simulated pod takes from start to ready." },
  "simulate.tick": { text: "The simulation's time step." },
  "simulate.initialReplicas": { text: "Ready pods at time 0 of the simulation." },
  "simulate.start": {
    text: "Wall-clock instant of the trace's time 0 (ISO 8601), so the services' schedules open at the right times.",
  },
  warm: {
    text: "Wake hints: a request on a path keeps services at one pod or more for a while, without holding the request.",
  },
  "warm[].path": { text: "Path prefix that sends the hint, e.g. /login." },
  "warm[].hosts": { text: "Host names the path is matched on; every host when empty." },
  "warm[].services": { text: "Services to warm, by name (namespace/name outside default)." },
  "warm[].ttlSeconds": {
    text: "Seconds each hint keeps the services warm (1–3600); a later hint extends it.",
  },
  containers: {
    text: "Serve the containers labelled `thaw.enable=true` on a container engine (docs/containers.md).",
  },
  "containers.discover": {
    text: "Read the engine's containers for `thaw.*` labels when `thaw up` starts (true).",
  },
  "containers.socket": {
    text: "The engine's API socket; default `DOCKER_HOST`, else `/run/podman/podman.sock`, else `/var/run/docker.sock`.",
  },
  services: { text: "The services to scale; at least one, unless `containers.discover` finds some." },
  "services[].name": { text: "The service's name (a DNS label).", knative: "Revision metadata.name" },
  "services[].namespace": { text: "Its namespace (a DNS label).", knative: "metadata.namespace" },
  "services[].hosts": {
    text: "Host names routed to it (the request's `Host`).",
    knative: "Route / DomainMapping hosts",
  },
  "services[].paths": {
    text: "Path prefixes routed to it; a `run:` service needs hosts or paths.",
    knative: "ingress rule paths",
  },
  "services[].containerConcurrency": {
    text: "Requests one pod serves at once; 0 is unlimited.",
    knative: "spec.template.spec.containerConcurrency",
  },
  "services[].timeoutSeconds": {
    text: "Longest a request may take, the wait for a cold start included.",
    knative: "spec.template.spec.timeoutSeconds",
  },
  "services[].responseStartTimeoutSeconds": {
    text: "Longest wait for the first byte of the app's answer; 0 or unset turns it off.",
    knative: "spec.template.spec.responseStartTimeoutSeconds",
  },
  "services[].idleTimeoutSeconds": {
    text: "Longest time with no byte of the answer; 0 or unset turns it off.",
    knative: "spec.template.spec.idleTimeoutSeconds",
  },
  "services[].maxQueue": {
    text: "Requests held per revision while it has no capacity; more are refused (503 ERR_QUEUE_FULL).",
    knative: "activator breaker queue depth",
  },
  "services[].bodyBufferBytes": {
    text: "Request bodies up to this size are kept to replay on another pod if the first one fails (all of them together within `bodyBufferRevisionBytes` and `bodyBufferProcessBytes`); 0 turns replay off.",
  },
  "services[].containerPortName": {
    text: "`h2c` makes the queue-proxy speak HTTP/2 cleartext to the app (gRPC); `http1` sends every request as HTTP/1.1.",
    knative: "containers[].ports[].name",
  },
  "services[].readinessProbe": {
    text: "The app's readiness probe (httpGet, tcpSocket or grpc), checked with Knative's rules.",
    knative: "containers[].readinessProbe",
  },
  "services[].autoscaling": {
    text: "Per-service autoscaling keys, with or without the annotation prefix (`min-scale`, `target`, `metric`, `class`, ...).",
    knative: "autoscaling.knative.dev/* annotations",
  },
  "services[].run": {
    text: "Run the service as local processes (`thaw up`, thaw-autoscaler's local scaler).",
  },
  "services[].run.command": {
    text: "The app's program and arguments; a relative path starts at the config file's folder.",
    knative: "containers[].command",
  },
  "services[].run.env": { text: "Extra environment of the app.", knative: "containers[].env" },
  "services[].run.cwd": { text: "The app's working directory, relative to the config file's folder." },
  "services[].run.portEnv": {
    text: "Name of the variable that tells the app its port.",
    knative: "PORT (Knative sets it to the container port)",
  },
  "services[].run.servingPort": {
    text: "Pin the queue-proxy's serving port (reachable from outside); at most one pod then runs.",
  },
  "services[].run.queueProxy": {
    text: "Run another Knative-compatible queue-proxy (Knative's own too) in front of the app, with Knative's environment only.",
    knative: "the queue-proxy sidecar image",
  },
  "services[].run.queueProxy.command": { text: "The queue-proxy program and arguments." },
  "services[].run.queueProxy.adminPort": {
    text: "The admin port it binds (`/wait-for-drain`).",
    knative: "queue-proxy admin port 8022",
  },
  "services[].run.queueProxy.metricsPort": {
    text: "The port of its protobuf Stat.",
    knative: "queue-proxy metrics port 9090",
  },
  "services[].kubernetes": {
    text: "Run the service as a Kubernetes Deployment (scaled, and rendered by `thaw k8s render`).",
  },
  "services[].kubernetes.deployment": {
    text: "The Deployment's name.",
    knative: "the revision's Deployment",
  },
  "services[].kubernetes.namespace": { text: "Its namespace; the service's namespace when unset." },
  "services[].kubernetes.kubeconfig": { text: "Kubeconfig file; in-cluster or `KUBECONFIG` when unset." },
  "services[].kubernetes.service": {
    text: "Service whose EndpointSlices list the pods; the Deployment's name when unset.",
    knative: "the revision's private Service",
  },
  "services[].kubernetes.portName": { text: "The EndpointSlice port that reaches the queue-proxy." },
  "services[].kubernetes.metricsPort": {
    text: "The queue-proxy's metrics port on each pod.",
    knative: "queue-proxy metrics port 9090",
  },
  "services[].kubernetes.image": {
    text: "`thaw k8s render`: the app's image.",
    knative: "containers[].image",
  },
  "services[].kubernetes.containerPort": {
    text: "`thaw k8s render`: the port the app listens on.",
    knative: "containers[].ports[].containerPort",
  },
  "services[].kubernetes.command": {
    text: "`thaw k8s render`: the container's command.",
    knative: "containers[].command",
  },
  "services[].kubernetes.args": {
    text: "`thaw k8s render`: the container's arguments.",
    knative: "containers[].args",
  },
  "services[].kubernetes.env": {
    text: "`thaw k8s render`: the app container's environment.",
    knative: "containers[].env",
  },
  "services[].kubernetes.resources": {
    text: "`thaw k8s render`: the app container's requests and limits.",
    knative: "containers[].resources",
  },
  "services[].kubernetes.resources.requests": { text: "Resources the scheduler reserves." },
  "services[].kubernetes.resources.requests.cpu": { text: "CPU, as a quantity (`100m`, `1`)." },
  "services[].kubernetes.resources.requests.memory": { text: "Memory, as a quantity (`128Mi`)." },
  "services[].kubernetes.resources.limits": { text: "Resources the container may not exceed." },
  "services[].kubernetes.resources.limits.cpu": { text: "CPU, as a quantity (`100m`, `1`)." },
  "services[].kubernetes.resources.limits.memory": { text: "Memory, as a quantity (`128Mi`)." },
  "services[].kubernetes.queueProxyResources": {
    text: "`thaw k8s render`: the queue-proxy container's requests and limits.",
    knative: "queue.sidecar.serving.knative.dev/* annotations",
  },
  "services[].kubernetes.queueProxyResources.requests": { text: "Resources the scheduler reserves." },
  "services[].kubernetes.queueProxyResources.requests.cpu": { text: "CPU, as a quantity (`100m`, `1`)." },
  "services[].kubernetes.queueProxyResources.requests.memory": { text: "Memory, as a quantity (`128Mi`)." },
  "services[].kubernetes.queueProxyResources.limits": { text: "Resources the container may not exceed." },
  "services[].kubernetes.queueProxyResources.limits.cpu": { text: "CPU, as a quantity (`100m`, `1`)." },
  "services[].kubernetes.queueProxyResources.limits.memory": { text: "Memory, as a quantity (`128Mi`)." },
  "services[].kubernetes.runAsUser": {
    text: "`thaw k8s render`: a non-root user id; the image's USER when unset.",
    knative: "securityContext.runAsUser",
  },
  "services[].kubernetes.readOnlyRootFilesystem": {
    text: "`thaw k8s render`: mount the app's root filesystem read-only.",
    knative: "securityContext.readOnlyRootFilesystem",
  },
  "services[].kubernetes.maxUnavailable": {
    text: "`thaw k8s render`: pods a voluntary disruption may take at once (its PodDisruptionBudget).",
  },
  "services[].kubernetes.labels": { text: "`thaw k8s render`: extra labels on the Deployment and its pods." },
  "services[].kubernetes.annotations": {
    text: "`thaw k8s render`: extra annotations on the Deployment and its pods.",
  },
  "services[].webhook": {
    text: "Scale the service through the signed scale webhook (a platform Thaw does not drive itself).",
  },
  "services[].webhook.url": { text: "Where each scale decision is POSTed." },
  "services[].webhook.endpoints": { text: "The queue-proxies (host:port) to send requests to and scrape." },
  "services[].webhook.headers": { text: "Extra headers on each webhook request." },
  "services[].schedules": {
    text: "Time windows with their own min-scale (a cron opens each, `end` or `duration` closes it), like KEDA's cron scaler.",
  },
  "services[].schedules[].name": {
    text: "Shown on the dashboard and in scale reasons; schedules[j] when unset.",
  },
  "services[].schedules[].timezone": { text: "IANA time zone the crons are read in (UTC when unset)." },
  "services[].schedules[].start": {
    text: 'Five-field cron at which the window opens, e.g. "0 8 * * mon-fri".',
  },
  "services[].schedules[].end": { text: "Cron at which the window closes; give this or duration." },
  "services[].schedules[].duration": { text: "How long the window stays open after each start, e.g. 10h." },
  "services[].schedules[].minScale": {
    text: "Pods kept ready while the window is open; the decider may still ask for more.",
    knative: "autoscaling.knative.dev/min-scale, for the window",
  },
  "services[].waitingPage": {
    text: "A page for browsers held while the service starts (docs/waiting-page.md); other clients are held as before.",
  },
  "services[].waitingPage.enabled": { text: "false: browsers are held like every other client." },
  "services[].waitingPage.after": {
    text: "How long a browser's request is held before it gets the page instead.",
  },
  "services[].waitingPage.template": {
    text: "An HTML file (relative to the config) to show instead of the built-in page, with {{placeholders}}.",
  },
  "services[].container": {
    text: "Run the service as a container the engine already has, started and stopped through the Docker API (docs/containers.md).",
  },
  "services[].container.name": {
    text: "The container's name, as `podman create --name` or Compose gave it.",
  },
  "services[].container.port": {
    text: "The port the app listens on inside the container.",
    knative: "containers[].ports[].containerPort",
  },
  "services[].container.socket": {
    text: "The engine's API socket; $DOCKER_HOST, then the podman and Docker defaults when unset.",
  },
  "services[].container.queueProxy": {
    text: "`process` (default): each replica's queue-proxy is a host process; `container`: a container beside the app's, in its network namespace, as in a Kubernetes pod.",
  },
  "services[].container.queueProxyImage": {
    text: "The queue-proxy container's image; default Thaw's, `localhost/thaw/queue-proxy:<version>` as `npm run images` builds it.",
  },
};
