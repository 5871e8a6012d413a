import http from "node:http";
import http2 from "node:http2";
import { LocalScaler } from "@thaw/autoscaler-service";
import { exerciseProtocols, PROTOCOL_APP, PROTOCOLS } from "@thaw/bench-kit/protocols";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActivatorChain, startActivatorChain } from "./support/activator-chain.js";
import { type CaddyProcess, requireCaddy, startCaddyForHook } from "./support/caddy-process.js";
import { scaleOnFirstPoke, scalerEndpoints } from "./support/local-scaler-overrides.js";
import { requireNginx } from "./support/nginx-process.js";

// Every protocol through real nginx (infra/nginx/nginx.conf) -> the hook service -> the real @thaw/activator,
// through real Caddy (infra/caddy/Caddyfile, forward_auth in Traefik's dialect) -> the same hook, and through
// the activator directly, cold and warm: HTTP/1 echo, SSE, websocket, h2c, gRPC unary,
// server-streaming and bidi (a real @grpc/grpc-js client and server). The pods are real processes:
// @thaw/bench-kit's protocol app behind a real thaw-queue-proxy, started by `thaw up`'s local scaler when the
// activator pokes it. nginx takes HTTP/1 (websocket, SSE) on one port and h2c (HTTP/2, gRPC) on another
// (nginx 1.22 cannot take both on one plaintext port); grpc_pass carries HTTP/2 to the pod or activator.
// Caddy takes both on one port and sends HTTP/2 upstream as h2c. Each path has a revision of its own.
// Cold: the eight requests are sent at once while no pod runs, so each is held through the cold start.
const TOKEN = "activator-token-for-protocols";
const H1 = ["http1", "sse", "websocket"];
const H2 = ["h2c", "grpc-unary", "grpc-error-status", "grpc-server-stream", "grpc-bidi"];
const ok = (names: readonly string[]) => Object.fromEntries(names.map((p) => [p, "ok"]));
const results = (got: Record<string, { result: string }>) =>
  Object.fromEntries(Object.entries(got).map(([k, v]) => [k, v.result]));

let chain: ActivatorChain;
let scaler: LocalScaler;
let caddy: CaddyProcess;
const names = ["viahook", "viacaddy", "direct"];

beforeAll(async () => {
  requireNginx();
  requireCaddy();
  scaler = new LocalScaler();
  for (const name of names) {
    scaler.register({
      namespace: "default",
      name,
      command: [process.execPath, PROTOCOL_APP],
      env: { STARTUP_DELAY_MS: "300" },
      portEnv: "PORT",
      // gRPC needs HTTP/2 to the app: its port is named h2c, as in Knative.
      portName: "h2c",
      containerConcurrency: 0,
      timeoutSeconds: 60,
      drainQuietPeriodMs: 200,
    });
  }
  chain = await startActivatorChain({
    token: TOKEN,
    revisions: names.map((name) => ({ namespace: "default", name, endpoints: [], timeoutSeconds: 60 })),
    services: names.map((name) => ({ name, namespace: "default", hosts: [`${name}.localhost`] })),
    hook: { activationTimeoutMs: 30_000 },
    overrides: {
      scaler: scaleOnFirstPoke(scaler, 1),
      endpoints: scalerEndpoints(scaler),
    },
  });
  caddy = await startCaddyForHook(chain.hook.port);
}, 60_000);

afterAll(async () => {
  await caddy?.stop();
  await chain?.close();
  await scaler?.close();
}, 60_000);

/** All eight at once: HTTP/1 ones on nginx's HTTP/1 port, HTTP/2 ones on its h2c port. */
async function throughNginx(): Promise<Record<string, string>> {
  const host = "viahook.localhost";
  const [h1, h2] = await Promise.all([
    exerciseProtocols({ origin: `http://127.0.0.1:${chain.port}`, host }, H1),
    exerciseProtocols({ origin: `http://127.0.0.1:${chain.h2Port}`, host }, H2),
  ]);
  return { ...results(h1), ...results(h2) };
}

/** All eight at Caddy's one port (HTTP/1 and h2c). */
async function throughCaddy(): Promise<Record<string, string>> {
  const origin = `http://127.0.0.1:${caddy.port}`;
  return results(await exerciseProtocols({ origin, host: "viacaddy.localhost" }));
}

/** All eight at the activator's one port, addressed by revision headers as the hook and Knative do. */
async function atActivator(): Promise<Record<string, string>> {
  const headers = { "knative-serving-namespace": "default", "knative-serving-revision": "direct" };
  const origin = `http://127.0.0.1:${chain.activator.port}`;
  return results(await exerciseProtocols({ origin, host: "direct.localhost", headers }));
}

describe("nginx + hook + activator: every protocol, cold and warm (real nginx, real pods)", () => {
  it("cold: each protocol's first request wakes the revision and round-trips in order", async () => {
    expect(scaler.pods({ namespace: "default", name: "viahook" })).toEqual([]);
    expect(await throughNginx()).toEqual(ok(PROTOCOLS));
  }, 90_000);

  it("warm: the same again on the running pod", async () => {
    expect(await throughNginx()).toEqual(ok(PROTOCOLS));
  }, 60_000);
});

describe("Caddy forward_auth + hook + activator: every protocol, cold and warm (real Caddy, real pods)", () => {
  it("cold: each protocol's first request wakes the revision and round-trips in order", async () => {
    expect(scaler.pods({ namespace: "default", name: "viacaddy" })).toEqual([]);
    expect(await throughCaddy()).toEqual(ok(PROTOCOLS));
  }, 90_000);

  it("warm: the same again on the running pod", async () => {
    expect(await throughCaddy()).toEqual(ok(PROTOCOLS));
  }, 60_000);
  // Issue 26: the app received the hook's X-Thaw-Upstream (copied into the request by forward_auth).
  it.each(["HTTP/1.1", "h2c"])(
    "the app never sees X-Thaw-Upstream (%s)",
    async (version) => {
      const origin = `http://127.0.0.1:${caddy.port}`;
      let seen: Record<string, string>;
      if (version === "h2c") {
        const session = http2.connect(origin);
        try {
          seen = await new Promise((resolve, reject) => {
            const s = session.request(
              { ":path": "/headers", ":authority": "viacaddy.localhost" },
              { endStream: true },
            );
            let body = "";
            s.setEncoding("utf8");
            s.on("data", (d) => (body += d));
            s.on("end", () => resolve(JSON.parse(body)));
            s.on("error", reject);
          });
        } finally {
          session.close();
        }
      } else {
        seen = await new Promise((resolve, reject) => {
          const req = http.get(
            `${origin}/headers`,
            { headers: { host: "viacaddy.localhost" }, agent: false },
            (res) => {
              let body = "";
              res.setEncoding("utf8");
              res.on("data", (d) => (body += d));
              res.on("end", () => resolve(JSON.parse(body)));
            },
          );
          req.on("error", reject);
        });
      }
      expect(seen["x-thaw-upstream"]).toBeUndefined();
      expect(seen["x-forwarded-for"]).toBe("127.0.0.1");
    },
    30_000,
  );
});

describe("the activator directly: every protocol, cold and warm (real pods)", () => {
  it("cold: each protocol's first request wakes the revision and round-trips in order", async () => {
    expect(scaler.pods({ namespace: "default", name: "direct" })).toEqual([]);
    expect(await atActivator()).toEqual(ok(PROTOCOLS));
  }, 90_000);

  it("warm: the same again on the running pod", async () => {
    expect(await atActivator()).toEqual(ok(PROTOCOLS));
  }, 60_000);
});
