import { describe, expect, it } from "vitest";
import {
  headersOf,
  isHealthCheckRequest,
  isKProbe,
  isKubeletProbe,
  isKubeletProbeByUserAgent,
  isProbe,
  probeHeaderValue,
  proxyHeaderValue,
  QUEUE_PROXY_HEALTH_CHECK_USER_AGENT_PREFIXES,
} from "./classify.js";

type H = Record<string, string>;
const rows: {
  name: string;
  headers: H;
  kubelet: boolean;
  kubeletUa: boolean;
  probe: boolean;
  kprobe: boolean;
  qpHealth: boolean;
}[] = [
  {
    name: "plain request",
    headers: {},
    kubelet: false,
    kubeletUa: false,
    probe: false,
    kprobe: false,
    qpHealth: false,
  },
  {
    name: "kubelet UA",
    headers: { "User-Agent": "kube-probe/1.30" },
    kubelet: true,
    kubeletUa: true,
    probe: true,
    kprobe: false,
    qpHealth: true,
  },
  {
    name: "bare kubelet prefix",
    headers: { "User-Agent": "kube-probe/" },
    kubelet: true,
    kubeletUa: true,
    probe: true,
    kprobe: false,
    qpHealth: true,
  },
  {
    name: "UA without the slash",
    headers: { "User-Agent": "kube-probe" },
    kubelet: false,
    kubeletUa: false,
    probe: false,
    kprobe: false,
    qpHealth: false,
  },
  {
    name: "K-Kubelet-Probe only counts for networking",
    headers: { "K-Kubelet-Probe": "queue" },
    kubelet: true,
    kubeletUa: false,
    probe: true,
    kprobe: false,
    qpHealth: false,
  },
  {
    name: "empty K-Kubelet-Probe",
    headers: { "K-Kubelet-Probe": "" },
    kubelet: false,
    kubeletUa: false,
    probe: false,
    kprobe: false,
    qpHealth: false,
  },
  {
    name: "network probe",
    headers: { "K-Network-Probe": "probe" },
    kubelet: false,
    kubeletUa: false,
    probe: true,
    kprobe: true,
    qpHealth: false,
  },
  {
    name: "queue probe",
    headers: { "K-Network-Probe": "queue" },
    kubelet: false,
    kubeletUa: false,
    probe: true,
    kprobe: false,
    qpHealth: false,
  },
  {
    name: "probe value is case-sensitive",
    headers: { "K-Network-Probe": "Probe" },
    kubelet: false,
    kubeletUa: false,
    probe: true,
    kprobe: false,
    qpHealth: false,
  },
  {
    name: "activator prober",
    headers: { "User-Agent": "Knative-Activator-Probe", "K-Network-Probe": "queue" },
    kubelet: false,
    kubeletUa: false,
    probe: true,
    kprobe: false,
    qpHealth: true,
  },
  {
    name: "autoscaler prober",
    headers: { "User-Agent": "Knative-Autoscaling-Probe" },
    kubelet: false,
    kubeletUa: false,
    probe: false,
    kprobe: false,
    qpHealth: true,
  },
  {
    name: "ingress prober is not a health check",
    headers: { "User-Agent": "Knative-Ingress-Probe", "K-Network-Probe": "probe" },
    kubelet: false,
    kubeletUa: false,
    probe: true,
    kprobe: true,
    qpHealth: false,
  },
];

describe("request classification (knative-spec.md a.2)", () => {
  it.each(rows)("$name", (row) => {
    const h = new Headers(row.headers);
    expect(isKubeletProbe(h)).toBe(row.kubelet);
    expect(isKubeletProbeByUserAgent(h)).toBe(row.kubeletUa);
    expect(isProbe(h)).toBe(row.probe);
    expect(isKProbe(h)).toBe(row.kprobe);
    expect(isHealthCheckRequest(h, QUEUE_PROXY_HEALTH_CHECK_USER_AGENT_PREFIXES)).toBe(row.qpHealth);
    // A Request classifies like its headers.
    expect(isProbe(new Request("http://x/", { headers: row.headers }))).toBe(row.probe);
  });

  it("health checks without prefixes are the kubelet's only", () => {
    expect(isHealthCheckRequest(new Headers({ "User-Agent": "Knative-Activator-Probe" }))).toBe(false);
    expect(isHealthCheckRequest(new Headers({ "User-Agent": "kube-probe/1" }))).toBe(true);
  });

  it.each<{ name: string; headers: Record<string, string>; probe: string; proxy: string }>([
    { name: "absent", headers: {}, probe: "", proxy: "" },
    { name: "empty", headers: { "K-Network-Probe": "", "K-Proxy-Request": "" }, probe: "", proxy: "" },
    {
      name: "set",
      headers: { "K-Network-Probe": "activator", "K-Proxy-Request": "activator" },
      probe: "activator",
      proxy: "activator",
    },
  ])("header values: $name", ({ headers, probe, proxy }) => {
    expect(probeHeaderValue(new Headers(headers))).toBe(probe);
    expect(proxyHeaderValue(new Headers(headers))).toBe(proxy);
  });

  it("headersOf returns a request's own headers object", () => {
    const req = new Request("http://x/");
    expect(headersOf(req)).toBe(req.headers);
    const h = new Headers();
    expect(headersOf(h)).toBe(h);
  });
});
