import type { UpstreamRequest } from "@thaw/activator";
import { parseConfig } from "@thaw/config";
import { hostTableResolver, IngressHook } from "@thaw/ingress-hook";
import { scaleRequest, signScaleWebhook } from "@thaw/protocol";
import { describe, expect, it } from "vitest";
import { resolveServices } from "../src/config-check.js";
import { createGateway } from "../src/gateway.js";
import { startStack } from "../src/stack.js";

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
    token: TOKEN,
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

describe("thaw up's POST /v1/scale (the scale webhook receiver, THAW_SCALE_WEBHOOK_SECRET)", () => {
  it("is mounted with the secret: 404 for a service it does not run, 401 for a bad signature", async () => {
    const parsed = parseConfig({
      services: [{ name: "hello", hosts: ["hello.localhost"], run: { command: ["node", "-e", "0"] } }],
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const services = resolveServices(parsed.value);
    if (!services.ok) throw new Error(JSON.stringify(services.issues));
    const secret = "thaw-up-scale-secret-0123";
    const stack = await startStack(parsed.value, services.value, {
      listen: "127.0.0.1:0",
      scaleWebhookSecret: secret,
    });
    try {
      const post = async (name: string, key: string) => {
        const body = JSON.stringify(
          scaleRequest({ namespace: "default", name, desiredScale: 0, reason: "test" }, Date.now()),
        );
        const headers = await signScaleWebhook(key, body, Date.now());
        return fetch(`${stack.url}/v1/scale`, { method: "POST", headers, body });
      };
      expect((await post("ghost", secret)).status).toBe(404);
      expect((await post("hello", "wrong-secret-0123456789")).status).toBe(401);
      // desiredScale 0 for a service at zero: accepted, and nothing starts.
      expect((await post("hello", secret)).status).toBe(200);
      expect(stack.scaler.pids()).toEqual([]);
    } finally {
      await stack.close();
    }
  });
});
