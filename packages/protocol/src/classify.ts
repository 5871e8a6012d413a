import { Header, ProbeValue, UserAgent } from "./headers.js";

/** Anything whose headers can be read: a `Request` or a `Headers`. */
export type HeaderSource = Request | Headers;

/** The headers of a request, or the headers themselves. */
export function headersOf(source: HeaderSource): Headers {
  // Duck-typed rather than `instanceof`: a Headers from another realm (or a polyfill) must work too.
  return "headers" in source ? source.headers : source;
}

/** `K-Network-Probe`, or "" when absent (knative-spec.md a.1). */
export function probeHeaderValue(source: HeaderSource): string {
  return headersOf(source).get(Header.networkProbe) ?? "";
}

/** `K-Proxy-Request`, or "" when absent. */
export function proxyHeaderValue(source: HeaderSource): string {
  return headersOf(source).get(Header.proxyRequest) ?? "";
}

/** knative/pkg's kubelet check, used by the drainer: only the `kube-probe/` user-agent counts. */
export function isKubeletProbeByUserAgent(source: HeaderSource): boolean {
  return (headersOf(source).get(Header.userAgent) ?? "").startsWith(UserAgent.kubeletPrefix);
}

/** networking's kubelet check: `kube-probe/` user-agent or a non-empty `K-Kubelet-Probe`. */
export function isKubeletProbe(source: HeaderSource): boolean {
  const headers = headersOf(source);
  return isKubeletProbeByUserAgent(headers) || (headers.get(Header.kubeletProbe) ?? "") !== "";
}

/** Any probe (kubelet or `K-Network-Probe` of any value); metrics and tracing skip these. */
export function isProbe(source: HeaderSource): boolean {
  return isKubeletProbe(source) || probeHeaderValue(source) !== "";
}

/** The drainer's network-probe check: `K-Network-Probe` is exactly `probe`. */
export function isKProbe(source: HeaderSource): boolean {
  return probeHeaderValue(source) === ProbeValue.network;
}

/** User-agent prefixes the queue-proxy's drainer treats as health checks besides the kubelet's. */
export const QUEUE_PROXY_HEALTH_CHECK_USER_AGENT_PREFIXES: readonly string[] = [
  UserAgent.activatorProbe,
  UserAgent.autoscalingProbe,
];

/**
 * The drainer's health-check test: a `kube-probe/` user-agent (knative/pkg rule, the `K-Kubelet-Probe`
 * header does not count) or a user-agent starting with one of `prefixes`. The path is not looked at.
 */
export function isHealthCheckRequest(source: HeaderSource, prefixes: readonly string[] = []): boolean {
  const headers = headersOf(source);
  if (isKubeletProbeByUserAgent(headers)) return true;
  const ua = headers.get(Header.userAgent) ?? "";
  return prefixes.some((prefix) => ua.startsWith(prefix));
}
