import { describe, expect, it } from "vitest";
import {
  parseDecoratorOperation,
  parseRevisionKey,
  resolveRevision,
  revisionFromHeaders,
  revisionFromHost,
  revisionKey,
  stripPort,
} from "./revision-id.js";

describe("revision from headers", () => {
  it.each<{
    name: string;
    headers: Record<string, string>;
    want: { namespace: string; name: string } | undefined;
  }>([
    {
      name: "both",
      headers: { "Knative-Serving-Namespace": "ns", "Knative-Serving-Revision": "r" },
      want: { namespace: "ns", name: "r" },
    },
    { name: "namespace missing", headers: { "Knative-Serving-Revision": "r" }, want: undefined },
    {
      name: "revision empty",
      headers: { "Knative-Serving-Namespace": "ns", "Knative-Serving-Revision": "" },
      want: undefined,
    },
  ])("$name", ({ headers, want }) => {
    expect(revisionFromHeaders(new Headers(headers))).toEqual(want);
  });
});

describe("revision from a cluster-local host", () => {
  it.each([
    {
      name: "plain",
      host: "hello-00001.default.svc.cluster.local",
      domain: undefined,
      want: { name: "hello-00001", namespace: "default" },
    },
    {
      name: "with port",
      host: "real-name.real-namespace.svc.cluster.local:80",
      domain: "cluster.local",
      want: { name: "real-name", namespace: "real-namespace" },
    },
    {
      name: "custom domain",
      host: "a.b.svc.corp.internal",
      domain: "corp.internal",
      want: { name: "a", namespace: "b" },
    },
    { name: "wrong domain", host: "a.b.svc.cluster.local", domain: "corp.internal", want: undefined },
    { name: "not a service host", host: "example.com", domain: undefined, want: undefined },
    { name: "missing namespace", host: "a.svc.cluster.local", domain: undefined, want: undefined },
    { name: "extra label", host: "x.a.b.svc.cluster.local", domain: undefined, want: undefined },
    {
      name: "case-insensitive",
      host: "A.B.SVC.Cluster.Local",
      domain: undefined,
      want: { name: "a", namespace: "b" },
    },
  ])("$name", ({ host, domain, want }) => {
    expect(revisionFromHost(host, domain)).toEqual(want);
  });

  it.each([
    ["host:80", "host"],
    ["host", "host"],
    ["[::1]:8080", "[::1]"],
    ["[::1]", "[::1]"],
  ])("stripPort(%s) = %s", (input, want) => {
    expect(stripPort(input)).toBe(want);
  });
});

describe("x-envoy-decorator-operation (the seed's Lua filter)", () => {
  it.each([
    {
      name: "istio route decorator",
      op: "helloworld-test-image-w5cvg.default.svc.cluster.local:80/*",
      want: {
        name: "helloworld-test-image-w5cvg",
        namespace: "default",
        host: "helloworld-test-image-w5cvg.default.svc.cluster.local",
        port: 80,
      },
    },
    {
      name: "h2c port",
      op: "r.ns.svc.cluster.local:81/",
      want: { name: "r", namespace: "ns", host: "r.ns.svc.cluster.local", port: 81 },
    },
    { name: "no port", op: "r.ns.svc.cluster.local/*", want: undefined },
    { name: "no path", op: "r.ns.svc.cluster.local:80", want: undefined },
    { name: "single label host", op: "r:80/*", want: undefined },
    { name: "empty", op: "", want: undefined },
    { name: "port out of range", op: "r.ns:70000/*", want: undefined },
  ])("$name", ({ op, want }) => {
    expect(parseDecoratorOperation(op)).toEqual(want);
  });
});

describe("resolveRevision", () => {
  const req = (url: string, headers: Record<string, string> = {}) => new Request(url, { headers });
  it.each([
    {
      name: "headers first",
      req: req("http://r2.ns2.svc.cluster.local/", {
        "Knative-Serving-Namespace": "ns",
        "Knative-Serving-Revision": "r",
      }),
      opts: {},
      want: { namespace: "ns", name: "r", source: "headers" },
    },
    {
      name: "host from the URL",
      req: req("http://r.ns.svc.cluster.local:8080/x"),
      opts: {},
      want: { namespace: "ns", name: "r", source: "host" },
    },
    {
      name: "decorator when enabled",
      req: req("http://app.example.com/", { "x-envoy-decorator-operation": "r.ns.svc.cluster.local:80/*" }),
      opts: { decorator: true },
      want: { namespace: "ns", name: "r", source: "decorator" },
    },
    {
      name: "decorator ignored by default",
      req: req("http://app.example.com/", { "x-envoy-decorator-operation": "r.ns.svc.cluster.local:80/*" }),
      opts: {},
      want: undefined,
    },
    { name: "nothing", req: req("http://example.com/"), opts: {}, want: undefined },
  ])("$name", ({ req: r, opts, want }) => {
    expect(resolveRevision(r, opts)).toEqual(want);
  });

  it("an explicit host overrides the URL", () => {
    expect(resolveRevision(req("http://10.0.0.1/"), {}, "r.ns.svc.cluster.local")).toMatchObject({
      name: "r",
    });
  });
});

describe("revision keys", () => {
  it.each([
    ["ns/r", { namespace: "ns", name: "r" }],
    ["ns", undefined],
    ["/r", undefined],
    ["a/b/c", undefined],
  ])("parseRevisionKey(%s)", (key, want) => {
    expect(parseRevisionKey(key)).toEqual(want);
    if (want) expect(revisionKey(want)).toBe(key);
  });
});
