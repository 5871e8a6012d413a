import type { ServiceConfig } from "@thaw/config";
import { type Probe, userContainerProbes, userPortOf } from "@thaw/readiness";
import { tcpPort } from "./env.js";
import { PART_OF, type RenderOptions } from "./options.js";
import { QUEUE_PORTS, queueProxyContainer, resourcesOf } from "./queue-proxy.js";
import { restrictedContainer, restrictedPod, TMP_MOUNT, TMP_VOLUME } from "./security.js";

/** A Kubernetes object as plain data. */
export type K8sObject = Record<string, unknown>;

/** The Kubernetes names of one service: its namespace, Deployment and Service. */
export interface ServiceNames {
  namespace: string;
  deployment: string;
  service: string;
  portName: string;
}

/** Names of a `kubernetes:` service; `service` is the Service whose EndpointSlices list the pods. */
export function namesOf(service: ServiceConfig): ServiceNames {
  const k = service.kubernetes;
  if (!k) throw new Error(`service ${service.name} has no kubernetes block`);
  // `service` is the scaler's Service name field where the config has one; the Deployment's name otherwise.
  const svc = (k as { service?: string }).service;
  return {
    namespace: k.namespace ?? service.namespace,
    deployment: k.deployment,
    service: svc ?? k.deployment,
    portName: k.portName,
  };
}

/** The labels that select a service's pods. */
export function podLabels(service: ServiceConfig): Record<string, string> {
  return {
    "app.kubernetes.io/name": namesOf(service).deployment,
    "serving.knative.dev/revision": service.name,
  };
}

/**
 * A service's objects: the Deployment (app + queue-proxy, no `replicas`: the autoscaler owns it), the Service
 * in front of the queue-proxies, a PodDisruptionBudget and a NetworkPolicy.
 */
export function serviceObjects(
  service: ServiceConfig,
  probe: Probe | undefined,
  options: RenderOptions,
  quietPeriod: string | number | undefined,
): K8sObject[] {
  const k = service.kubernetes;
  if (!k) throw new Error(`service ${service.name} has no kubernetes block`);
  if (!k.image) throw new Error(`service ${service.name} has no kubernetes.image`);
  const names = namesOf(service);
  const labels = podLabels(service);
  const meta = (name: string) => ({ name, namespace: names.namespace, labels: { ...labels, ...PART_OF } });
  const qp = queueProxyContainer(service, probe, options, quietPeriod);
  const userPort = userPortOf(qp.serving);
  const kept = userContainerProbes(qp.serving, userPort);
  const readOnly = k.readOnlyRootFilesystem;
  const user = {
    name: "user-container",
    image: k.image,
    ...(k.command ? { command: k.command } : {}),
    ...(k.args ? { args: k.args } : {}),
    ports: [tcpPort("user-port", userPort)],
    env: [
      ...Object.keys(k.env)
        .sort()
        .map((n) => ({ name: n, value: k.env[n] })),
      { name: "PORT", value: String(userPort) },
      { name: "K_REVISION", value: service.name },
      { name: "K_CONFIGURATION", value: service.name },
      { name: "K_SERVICE", value: service.name },
    ],
    ...kept,
    // Knative's drain: kubelet calls this before SIGTERM reaches the app, and it returns once the
    // queue-proxy has seen no request for the quiet period. Only the user container has it: the
    // queue-proxy must get its SIGTERM at once to start draining.
    lifecycle: { preStop: { httpGet: { path: "/wait-for-drain", port: QUEUE_PORTS.admin } } },
    // An app that exits with an error leaves its last log lines in its status (`terminated.message`): what
    // the autoscaler reports as the revision's problem, with no access to pod logs.
    terminationMessagePolicy: "FallbackToLogsOnError",
    resources: resourcesOf(k.resources, {
      requests: { cpu: "100m", memory: "128Mi" },
      limits: { cpu: "1", memory: "512Mi" },
    }),
    securityContext: restrictedContainer(readOnly),
    ...(readOnly ? { volumeMounts: [TMP_MOUNT] } : {}),
  };
  // The config's own labels and annotations go on the Deployment and its pods (the schema refuses Thaw's keys).
  const annotations = Object.keys(k.annotations).length > 0 ? { annotations: { ...k.annotations } } : {};
  const deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { ...meta(names.deployment), labels: { ...k.labels, ...labels, ...PART_OF }, ...annotations },
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: {
          labels: {
            ...k.labels,
            ...labels,
            "serving.knative.dev/configuration": service.name,
            "serving.knative.dev/service": service.name,
          },
          ...annotations,
        },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          // Knative: grace = the revision timeout, so a request in flight can finish.
          terminationGracePeriodSeconds: service.timeoutSeconds,
          securityContext: restrictedPod(k.runAsUser),
          containers: [user, qp.container],
          ...(readOnly ? { volumes: [TMP_VOLUME] } : {}),
        },
      },
    },
  };
  const svc = {
    apiVersion: "v1",
    kind: "Service",
    metadata: meta(names.service),
    spec: {
      selector: labels,
      ports: [
        { name: names.portName, port: 80, targetPort: "queue-port", protocol: "TCP" },
        {
          name: "http-autometric",
          port: QUEUE_PORTS.metrics,
          targetPort: "http-autometric",
          protocol: "TCP",
        },
        {
          name: "http-usermetric",
          port: QUEUE_PORTS.userMetrics,
          targetPort: "http-usermetric",
          protocol: "TCP",
        },
      ],
    },
  };
  const pdb = {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: meta(names.deployment),
    spec: { maxUnavailable: k.maxUnavailable, selector: { matchLabels: labels } },
  };
  return [deployment, svc, pdb, networkPolicy(service, options, qp.queuePort, meta(names.deployment))];
}

function platformPeer(options: RenderOptions, name: string): K8sObject {
  return {
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": options.systemNamespace } },
    podSelector: { matchLabels: { "app.kubernetes.io/name": name } },
  };
}

/** Only the activator, the hook and the ingress namespaces reach the serving ports; only the autoscaler scrapes. */
function networkPolicy(
  service: ServiceConfig,
  options: RenderOptions,
  queuePort: number,
  metadata: K8sObject,
): K8sObject {
  const tcp = (port: number) => ({ protocol: "TCP", port });
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata,
    spec: {
      podSelector: { matchLabels: podLabels(service) },
      policyTypes: ["Ingress"],
      ingress: [
        {
          from: [
            platformPeer(options, "thaw-activator"),
            platformPeer(options, "thaw-ingress-hook"),
            {
              namespaceSelector: {
                matchExpressions: [
                  {
                    key: "kubernetes.io/metadata.name",
                    operator: "In",
                    values: [...options.ingressNamespaces],
                  },
                ],
              },
            },
          ],
          ports: [tcp(queuePort), tcp(QUEUE_PORTS.tls)],
        },
        { from: [platformPeer(options, "thaw-autoscaler")], ports: [tcp(QUEUE_PORTS.metrics)] },
      ],
    },
  };
}
