import { describe, expect, it } from "vitest";
import { scanRequestHead } from "./request-head.js";

describe("scanRequestHead", () => {
  const rows: {
    name: string;
    raw: string[];
    upstream: string[];
    check?: (h: ReturnType<typeof scanRequestHead>) => void;
  }[] = [
    {
      name: "plain headers pass in order",
      raw: ["Host", "a", "Accept", "*/*"],
      upstream: ["Host", "a", "Accept", "*/*"],
    },
    {
      name: "K-Original-Host replaces Host and disappears",
      raw: ["Host", "10.0.0.1:8012", "K-Original-Host", "hello.example.com"],
      upstream: ["Host", "hello.example.com"],
    },
    {
      name: "K-Original-Host without Host adds one",
      raw: ["K-Original-Host", "h.example"],
      upstream: ["host", "h.example"],
    },
    {
      name: "revision headers are dropped",
      raw: ["Knative-Serving-Revision", "r", "knative-serving-namespace", "ns", "X", "1"],
      upstream: ["X", "1"],
    },
    {
      name: "hop-by-hop headers are dropped, Connection's tokens too",
      raw: [
        "Connection",
        "keep-alive, X-Hop",
        "X-Hop",
        "1",
        "Keep-Alive",
        "5",
        "TE",
        "trailers",
        "Upgrade",
        "h2c",
        "Proxy-Connection",
        "x",
        "X-Keep",
        "2",
      ],
      upstream: ["X-Keep", "2"],
    },
    {
      name: "framing fields never go upstream from here (the upstream writes its own from the parsed message)",
      raw: ["Transfer-Encoding", "chunked", "Content-Length", "0", "X", "1"],
      upstream: ["X", "1"],
    },
    {
      name: "Connection never makes framing fields or Host hop-by-hop",
      raw: [
        "Host",
        "a",
        "Connection",
        "content-length, transfer-encoding, host, X-Hop",
        "X-Hop",
        "1",
        "Y",
        "2",
      ],
      upstream: ["Host", "a", "Y", "2"],
    },
    {
      name: "K-Original-Host replaces the Host field only, not another four-letter h-field",
      raw: ["Hxyz", "keep", "Host", "10.0.0.1", "K-Original-Host", "orig.example"],
      upstream: ["Hxyz", "keep", "Host", "orig.example"],
    },
    {
      name: "K-Original-Host with only another four-letter h-field adds a Host",
      raw: ["Hxyz", "keep", "K-Original-Host", "orig.example"],
      upstream: ["Hxyz", "keep", "host", "orig.example"],
    },
    {
      name: "probe and proxy headers are read and passed on",
      raw: [
        "K-Network-Probe",
        "queue",
        "K-Proxy-Request",
        "activator",
        "User-Agent",
        "kube-probe/1.30",
        "K-Kubelet-Probe",
        "x",
      ],
      upstream: [
        "K-Network-Probe",
        "queue",
        "K-Proxy-Request",
        "activator",
        "User-Agent",
        "kube-probe/1.30",
        "K-Kubelet-Probe",
        "x",
      ],
      check: (h) => {
        expect([h.networkProbe, h.proxyRequest, h.userAgent, h.kubeletProbe]).toEqual([
          "queue",
          "activator",
          "kube-probe/1.30",
          "x",
        ]);
      },
    },
    {
      name: "repeated X-Forwarded-For values are joined",
      raw: ["X-Forwarded-For", "1.1.1.1", "x-forwarded-for", "2.2.2.2", "Forwarded", "for=x"],
      upstream: ["X-Forwarded-For", "1.1.1.1", "x-forwarded-for", "2.2.2.2", "Forwarded", "for=x"],
      check: (h) => {
        expect(h.xForwardedFor).toBe("1.1.1.1, 2.2.2.2");
        expect(h.hasForwarded).toBe(true);
      },
    },
    {
      name: "Expect is not forwarded (Node answers 100-continue itself)",
      raw: ["Expect", "100-continue"],
      upstream: [],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const head = scanRequestHead(row.raw);
      expect(head.upstream).toEqual(row.upstream);
      row.check?.(head);
    });
  }
});
