import { describe, expect, it } from "vitest";
import {
  activatorForwardHeaders,
  activatorUpstreamHeaders,
  isProxiedRequest,
  originalHost,
  passthroughLbHeaders,
  privateServiceHost,
  queueProxyForwardHeaders,
  withoutInternalHeaders,
} from "./forward-headers.js";
import { INTERNAL_HEADERS } from "./headers.js";

const entries = (h: Headers) => Object.fromEntries(h.entries());

describe("activator forward headers (knative-spec.md d.1)", () => {
  it.each<{ name: string; in: Record<string, string>; host: string; want: Record<string, string> }>([
    {
      name: "moves Host into K-Original-Host",
      in: { host: "app.example.com", "x-a": "1" },
      host: "app.example.com",
      want: { "k-original-host": "app.example.com", "k-proxy-request": "activator", "x-a": "1" },
    },
    {
      name: "keeps an existing K-Original-Host",
      in: { "k-original-host": "first.example.com" },
      host: "second.example.com",
      want: { "k-original-host": "first.example.com", "k-proxy-request": "activator" },
    },
    {
      name: "drops revision headers",
      in: { "knative-serving-revision": "r", "knative-serving-namespace": "n" },
      host: "h",
      want: { "k-original-host": "h", "k-proxy-request": "activator" },
    },
    { name: "no host to keep", in: {}, host: "", want: { "k-proxy-request": "activator" } },
  ])("$name", ({ in: input, host, want }) => {
    const before = new Headers(input);
    expect(entries(activatorForwardHeaders(before, host))).toEqual(want);
    expect(entries(before)).toEqual(entries(new Headers(input)));
  });
});

describe("queue-proxy forward headers", () => {
  it.each<{
    name: string;
    in: Record<string, string>;
    host: string;
    wantHost: string;
    want: Record<string, string>;
  }>([
    {
      name: "restores Host from K-Original-Host",
      in: { "k-original-host": "app.example.com", "k-proxy-request": "activator" },
      host: "10.0.0.5:8012",
      wantHost: "app.example.com",
      want: { "k-proxy-request": "activator" },
    },
    {
      name: "no K-Original-Host keeps the host",
      in: { "x-a": "1" },
      host: "app",
      wantHost: "app",
      want: { "x-a": "1" },
    },
    {
      name: "rewrites an explicit host header and drops revision headers",
      in: {
        host: "10.0.0.5",
        "k-original-host": "app",
        "knative-serving-revision": "r",
        "knative-serving-namespace": "n",
      },
      host: "10.0.0.5",
      wantHost: "app",
      want: { host: "app" },
    },
  ])("$name", ({ in: input, host, wantHost, want }) => {
    const out = queueProxyForwardHeaders(new Headers(input), host);
    expect(out.host).toBe(wantHost);
    expect(entries(out.headers)).toEqual(want);
  });

  it("originalHost prefers the header, ignores an empty one", () => {
    expect(originalHost(new Headers({ "K-Original-Host": "a" }), "b")).toBe("a");
    expect(originalHost(new Headers({ "K-Original-Host": "" }), "b")).toBe("b");
  });
});

describe("internal headers", () => {
  it("strips every internal header and nothing else", () => {
    const h = new Headers({ "x-keep": "1" });
    for (const name of INTERNAL_HEADERS) h.set(name, "v");
    expect(entries(withoutInternalHeaders(h))).toEqual({ "x-keep": "1" });
  });

  it.each([
    ["activator", true],
    ["anything", true],
    ["", false],
  ])("K-Proxy-Request %j proxied: %s", (value, want) => {
    expect(isProxiedRequest(new Headers({ "K-Proxy-Request": value }))).toBe(want);
  });
});

describe("passthrough LB", () => {
  it("targets <rev>-private.<ns> with K-Passthrough-Lb: true and keeps the other headers", () => {
    const rev = { namespace: "prod", name: "hello-00003" };
    expect(privateServiceHost(rev)).toBe("hello-00003-private.prod");
    const out = passthroughLbHeaders(new Headers({ "K-Original-Host": "hello.example.com" }), rev);
    expect(entries(out)).toEqual({
      host: "hello-00003-private.prod",
      "k-original-host": "hello.example.com",
      "k-passthrough-lb": "true",
    });
  });
});

describe("activator upstream headers", () => {
  it("drops hop-by-hop headers, including those Connection names", () => {
    const h = new Headers({
      connection: "x-hop",
      "x-hop": "1",
      "keep-alive": "5",
      te: "trailers",
      "x-app": "2",
    });
    expect(entries(activatorUpstreamHeaders(h, "a.example"))).toEqual({
      "k-original-host": "a.example",
      "k-proxy-request": "activator",
      "x-app": "2",
    });
  });

  it("keeps a websocket handshake's Upgrade", () => {
    const h = new Headers({ connection: "Upgrade", upgrade: "websocket" });
    const out = activatorUpstreamHeaders(h, "a.example");
    expect([out.get("upgrade"), out.get("connection")]).toEqual(["websocket", "Upgrade"]);
    expect(
      activatorUpstreamHeaders(new Headers({ connection: "Upgrade", upgrade: "h2c" }), "a").has("upgrade"),
    ).toBe(false);
  });
});
