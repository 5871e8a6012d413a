/** Header names of Knative's data plane (knative-spec.md a.1). Lower-case, as `Headers` stores them. */
export const Header = {
  networkProbe: "k-network-probe",
  networkHash: "k-network-hash",
  proxyRequest: "k-proxy-request",
  originalHost: "k-original-host",
  kubeletProbe: "k-kubelet-probe",
  passthroughLb: "k-passthrough-lb",
  revision: "knative-serving-revision",
  namespace: "knative-serving-namespace",
  routeTag: "knative-serving-tag",
  defaultRoute: "knative-serving-default-route",
  directLb: "knative-direct-lb",
  userAgent: "user-agent",
  forwarded: "forwarded",
  xForwardedFor: "x-forwarded-for",
  xForwardedHost: "x-forwarded-host",
  xForwardedProto: "x-forwarded-proto",
  envoyDecoratorOperation: "x-envoy-decorator-operation",
} as const;

/** Well-known values of `K-Network-Probe`. */
export const ProbeValue = {
  /** Ingress / network readiness probe (hash echo). */
  network: "probe",
  /** Probe aimed at a queue-proxy (kubelet, activator). */
  queue: "queue",
  /** Probe aimed at an activator (autoscaler). */
  activator: "activator",
} as const;

/** `K-Proxy-Request` value the activator sets on everything it forwards. */
export const PROXY_REQUEST_ACTIVATOR = "activator";

/** `K-Network-Hash` value a prober sends for the ingress to replace. */
export const NETWORK_HASH_OVERRIDE = "override";

/** User agents of Knative's own probers. */
export const UserAgent = {
  kubeletPrefix: "kube-probe/",
  /** What the queue-proxy's HTTP readiness prober sends: Knative never fills in the version. */
  queueProxyReadiness: "kube-probe//",
  activatorProbe: "Knative-Activator-Probe",
  autoscalingProbe: "Knative-Autoscaling-Probe",
  ingressProbe: "Knative-Ingress-Probe",
  queueProxyProbe: "Knative-Queue-Proxy-Probe",
} as const;

/** Paths with a fixed meaning. */
export const Path = {
  healthz: "/healthz",
  waitForDrain: "/wait-for-drain",
  /**
   * On the queue-proxy's metrics port (Thaw's, not Knative's): `{ userPort, listening }`, the ports the
   * pod's other containers listen on, for the autoscaler to name a port mismatch of a pod never ready.
   */
  listening: "/thaw/listening",
} as const;

/** Headers only Knative components may set; the ingress hook strips them from outside requests. */
export const INTERNAL_HEADERS: readonly string[] = [
  Header.networkProbe,
  Header.networkHash,
  Header.proxyRequest,
  Header.originalHost,
  Header.kubeletProbe,
  Header.passthroughLb,
  Header.revision,
  Header.namespace,
];

/** Content type of the protobuf `Stat` on the queue-proxy's :9090 `/metrics`. */
export const PROTOBUF_CONTENT_TYPE = "application/protobuf";
