import type { UpstreamRequest } from "@thaw/activator";
import { hostTableResolver, IngressHook } from "@thaw/ingress-hook";
import { describe, expect, it } from "vitest";
import { createGateway } from "../src/gateway.js";

const TOKEN = "stack-token-0123456789";

/** A gateway whose hook routes hello.localhost, and whose activator answers as a ready revision. */
function gateway() {
  const hosts: string[] = [];
  const hook = new IngressHook({
    clock: { now: Date.now, setTimeout, clearTimeout, sleep: async () => {} } as never,
    random: () => 0,
    resolvers: [hostTableResolver([{ name: "hello", namespace: "default", hosts: ["hello.localhost"] }])],
    activator: { activate: async () => ({ kind: "ready", endpoints: ["127.0.0.1:9"], coldStart: false }) },
  });
  const app = createGateway({
    hook,
    activator: {
      fetch: (req: Request) => {
        hosts.push(req.headers.get("host") ?? "");
        return new Response("via activator");
      },
    },
    forwardAuth: { fetch: () => new Response("auth") },
    forward: (_d: string, _r: UpstreamRequest) => Promise.reject(new Error("no pod")),
    revisions: () => [],
    scaleWebhook: async () => new Response("scaled"),
    edgeToken: TOKEN,
  });
  return { app, hosts };
}

describe("gateway behind an edge (origin a of CONTRACTS.md)", () => {
  it("routes on X-Forwarded-Host only when the edge proves the stack token", async () => {
    const { app, hosts } = gateway();
    const headers = { "x-forwarded-host": "hello.localhost", "x-thaw-route-token": TOKEN };
    const ok = await app.request("http://127.0.0.1:8080/x", { headers });
    expect(ok.status).toBe(200);
    expect(hosts).toEqual(["hello.localhost"]);
    const spoof = await app.request("http://127.0.0.1:8080/x", {
      headers: { ...headers, "x-thaw-route-token": "guess-guess-guess-gu" },
    });
    expect(spoof.status).toBe(404);
    const none = await app.request("http://127.0.0.1:8080/x", {
      headers: { "x-forwarded-host": "hello.localhost" },
    });
    expect(none.status).toBe(404);
  });

  it("POST /v1/scale goes to the scale webhook receiver, not the activator", async () => {
    const { app, hosts } = gateway();
    const res = await app.request("http://127.0.0.1:8080/v1/scale", { method: "POST", body: "{}" });
    expect(await res.text()).toBe("scaled");
    expect(hosts).toEqual([]);
  });
});
