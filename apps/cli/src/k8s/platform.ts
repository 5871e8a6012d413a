import { type ComponentSpec, platformComponents } from "./components.js";
import { tcpPort } from "./env.js";
import { CONFIG_MAP, CONFIG_MOUNT_DIR, PART_OF, type RenderOptions } from "./options.js";
import { restrictedContainer, restrictedPod, TMP_MOUNT, TMP_VOLUME } from "./security.js";
import type { K8sObject } from "./service.js";

/** The user id Thaw's images run as (infra/docker). */
const IMAGE_UID = 1000;

/** A namespace that enforces the `restricted` Pod Security Standard. */
export function namespaceObject(name: string): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name,
      labels: {
        ...PART_OF,
        "pod-security.kubernetes.io/enforce": "restricted",
        "pod-security.kubernetes.io/warn": "restricted",
      },
    },
  };
}

function labelsOf(name: string): Record<string, string> {
  return { "app.kubernetes.io/name": name, ...PART_OF };
}

function deploymentOf(c: ComponentSpec, ns: string): K8sObject {
  const selector = { "app.kubernetes.io/name": c.name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: c.name, namespace: ns, labels: labelsOf(c.name) },
    spec: {
      replicas: c.replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: labelsOf(c.name) },
        spec: {
          serviceAccountName: c.name,
          enableServiceLinks: false,
          terminationGracePeriodSeconds: c.terminationGracePeriodSeconds,
          securityContext: restrictedPod(IMAGE_UID),
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 100,
                  podAffinityTerm: {
                    labelSelector: { matchLabels: selector },
                    topologyKey: "kubernetes.io/hostname",
                  },
                },
              ],
            },
          },
          containers: [
            {
              name: c.name.replace(/^thaw-/, ""),
              image: c.image,
              args: c.args,
              env: c.env,
              ports: [tcpPort("http", c.port)],
              readinessProbe: c.readinessProbe,
              livenessProbe: c.livenessProbe,
              resources: c.resources,
              securityContext: restrictedContainer(true),
              volumeMounts: [{ name: "config", mountPath: CONFIG_MOUNT_DIR, readOnly: true }, TMP_MOUNT],
            },
          ],
          volumes: [{ name: "config", configMap: { name: CONFIG_MAP } }, TMP_VOLUME],
        },
      },
    },
  };
}

function serviceOf(c: ComponentSpec, ns: string): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: c.name, namespace: ns, labels: labelsOf(c.name) },
    spec: {
      selector: { "app.kubernetes.io/name": c.name },
      ports: [{ name: "http", port: c.port, targetPort: "http", protocol: "TCP" }],
    },
  };
}

function pdbOf(c: ComponentSpec, ns: string): K8sObject {
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: c.name, namespace: ns, labels: labelsOf(c.name) },
    spec: { maxUnavailable: 1, selector: { matchLabels: { "app.kubernetes.io/name": c.name } } },
  };
}

function serviceAccountOf(c: ComponentSpec, ns: string): K8sObject {
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: c.name, namespace: ns, labels: labelsOf(c.name) },
  };
}

/** The platform's Deployments, Services, PodDisruptionBudgets and ServiceAccounts, in a stable order. */
export function platformObjects(options: RenderOptions): K8sObject[] {
  const ns = options.systemNamespace;
  const out: K8sObject[] = [namespaceObject(ns)];
  for (const c of platformComponents(options)) {
    out.push(serviceAccountOf(c, ns), deploymentOf(c, ns), serviceOf(c, ns), pdbOf(c, ns));
  }
  return out;
}
