/**
 * The tables of `thaw` and its commands: what `--help` prints and what the parser accepts. Kept apart from
 * the commands' code so answering `--help` (or a typo) loads nothing else.
 */
import type { Command } from "@thaw/command-line";
import { TRACING_ENV_VARS } from "@thaw/protocol/otel";
import { DEFAULT_RENDER_OPTIONS as D } from "./k8s/options.js";

/** Where every command looks for its config unless told. */
export const DEFAULT_CONFIG = "thaw.config.yaml";

const config = {
  name: "--config",
  short: "-c",
  value: "FILE",
  default: DEFAULT_CONFIG,
  help: "the config to run",
} as const;

/** `thaw up`. */
export const UP: Command = {
  name: "thaw up",
  summary:
    "runs the whole stack on this machine: a gateway, the activator, the autoscaler and each `run:` service's pods as local processes (scaled from zero)",
  flags: [
    config,
    { name: "--verbose", short: "-v", help: "print the pods' output too" },
    {
      name: "--log-format",
      value: "text|json",
      default: "text",
      help: "text lines, or one JSON line per event",
    },
    { name: "--tracing", help: "send spans over OTLP/HTTP even when OTEL_TRACES_EXPORTER is unset" },
  ],
  env: [
    {
      name: "THAW_SCALE_WEBHOOK_SECRET",
      help: "signs scale webhooks and checks POST /v1/scale (32+ characters)",
    },
    { name: "THAW_UP_WARM_UP", default: "1", help: "0 skips the start-up warm-up cold start" },
    { name: "THAW_UP_DEBUG", default: "0", help: "1 prints why a start-up warm-up failed" },
    ...TRACING_ENV_VARS,
  ],
};

/** `thaw validate`. */
export const VALIDATE: Command = {
  name: "thaw validate",
  summary: "checks a config without running anything and prints every problem at once (exit 1 if any)",
  usage: `[${DEFAULT_CONFIG}]`,
  flags: [],
  maxPositionals: 1,
};

/** `thaw k8s render`. */
export const RENDER: Command = {
  name: "thaw k8s render",
  summary:
    "writes the Kubernetes manifests (kustomize) of the config's `kubernetes:` services and of the platform (activator, autoscaler, ingress hook, RBAC, ingress routes)",
  flags: [
    { ...config, help: "the config to render" },
    {
      name: "--out",
      short: "-o",
      value: "DIR",
      help: "write the tree under DIR, removing the files the last render there wrote and this one does not (default: print every file to stdout)",
    },
    {
      name: "--image-registry",
      value: "PREFIX",
      default: D.imageRegistry,
      help: "where the Thaw images come from (a placeholder: set yours)",
    },
    { name: "--image-tag", value: "TAG", default: D.imageTag, help: "the tag of every Thaw image" },
    {
      name: "--system-namespace",
      value: "NAME",
      default: D.systemNamespace,
      help: "the namespace of the activator, autoscaler and hook",
    },
    {
      name: "--ingress-namespaces",
      value: "A,B",
      default: D.ingressNamespaces.join(","),
      help: "namespaces whose ingress pods may reach the queue-proxies",
    },
    {
      name: "--ingress-class",
      value: "NAME",
      default: D.ingressClass,
      help: "the IngressClass of the ingress-nginx Ingresses",
    },
    {
      name: "--gateway",
      value: "NAMESPACE/NAME",
      default: `${D.gateway.namespace}/${D.gateway.name}`,
      help: "the Gateway the HTTPRoutes attach to",
    },
    {
      name: "--istio-namespace",
      value: "NAME",
      default: D.istioNamespace,
      help: "the namespace of Istio's ingress gateway",
    },
  ],
};

/** `thaw k8s`: only a dispatcher to its commands. */
export const K8S: Command = {
  name: "thaw k8s",
  summary: "Kubernetes: render manifests for a config",
  usage: "render [flags]   (thaw k8s render --help)",
  flags: [],
  commands: [{ name: "render", summary: "Kubernetes manifests (kustomize) for the config and the platform" }],
};

/** `thaw`. */
export const THAW: Command = {
  name: "thaw",
  summary: "wakes HTTP services scaled to zero (Knative Serving compatible)",
  usage: "<command> [flags]   (thaw <command> --help for each)",
  flags: [],
  commands: [
    { name: "up", summary: UP.summary.split(":")[0] as string },
    { name: "validate", summary: "check a config, print every issue" },
    { name: "k8s", summary: "thaw k8s render: Kubernetes manifests (kustomize) for the config" },
  ],
};
