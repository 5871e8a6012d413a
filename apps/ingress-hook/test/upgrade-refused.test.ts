import http from "node:http";
import { LocalScaler } from "@thaw/autoscaler-service";
import { PROTOCOL_APP } from "@thaw/bench-kit/protocols";
import { sendRaw } from "@thaw/h1-diff";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActivatorChain, startActivatorChain } from "./support/activator-chain.js";
import { type CaddyProcess, requireCaddy, startCaddyForHook } from "./support/caddy-process.js";
import { httpGet } from "./support/http-get.js";
import { scaleOnFirstPoke, scalerEndpoints } from "./support/local-scaler-overrides.js";
import { requireNginx } from "./support/nginx-process.js";

// Issue 26 through infra/nginx/nginx.conf and infra/caddy/Caddyfile -> the hook -> the real activator: a
// websocket handshake the app refuses (no Sec-WebSocket-Key: the app's `ws` answers 400) is held while its
// revision is cold, so it goes through the activator on one of the proxy's pooled upstream connections.
// Afterwards, other clients' held requests and websocket handshakes for another cold revision must reach
// that revision's app, never the refusing one. Pods are real: bench-kit's protocol app (every answer names
// its pid) behind a real thaw-queue-proxy, started by `thaw up`'s local scaler.
const TOKEN = "activator-token-for-upgrade-refusals";
const FRONTS = ["nginx", "caddy"] as const;
const names = FRONTS.flatMap((f) => [`alpha${f}`, `beta${f}`]);

let chain: ActivatorChain;
let scaler: LocalScaler;
let caddy: CaddyProcess;

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
    overrides: { scaler: scaleOnFirstPoke(scaler, 1), endpoints: scalerEndpoints(scaler) },
  });
  caddy = await startCaddyForHook(chain.hook.port);
}, 60_000);

afterAll(async () => {
  await caddy?.stop();
  await chain?.close();
  await scaler?.close();
}, 60_000);

/** A websocket handshake to `host`; resolves with the pid the app's 101 names, or the refusal's status. */
function handshake(port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: "127.0.0.1",
      port,
      path: "/ws",
      agent: false,
      headers: {
        host,
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      },
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`handshake to ${host} timed out`)));
    req.on("upgrade", (res, socket) => {
      socket.destroy();
      resolve(`pid ${res.headers["x-app-pid"]}`);
    });
    req.on("response", (res) => {
      res.resume();
      resolve(`status ${res.statusCode}`);
    });
    req.on("error", reject);
    req.end();
  });
}

const portOf = (front: (typeof FRONTS)[number]) => (front === "nginx" ? chain.port : caddy.port);

describe.each(FRONTS)("%s -> hook -> activator: a refused upgrade to a cold revision", (front) => {
  it("leaves no pooled connection spliced: other clients' held requests and websockets reach their own app", async () => {
    const port = portOf(front);
    const alpha = `alpha${front}.localhost`;
    const beta = `beta${front}.localhost`;
    // Refused upgrades to alpha while it is cold (held, then through the activator): answered, not 101.
    const refusals = await Promise.all(
      [1, 2, 3].map(() =>
        sendRaw(
          port,
          Buffer.from(
            `GET /ws HTTP/1.1\r\nHost: ${alpha}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`,
          ),
        ),
      ),
    );
    try {
      for (const c of refusals) expect(await c.until(() => c.answers.length === 1, 30_000)).toBe(true);
      expect(refusals.map((c) => c.answers[0]?.status)).toEqual([400, 400, 400]);
      // Other clients, while beta is still cold: plain requests and websocket handshakes, all held.
      const [gets, sockets] = await Promise.all([
        Promise.all([1, 2, 3, 4, 5, 6].map((i) => httpGet(port, beta, `/echo-${i}`))),
        Promise.all([1, 2, 3, 4, 5, 6].map(() => handshake(port, beta))),
      ]);
      const alphaPid = (await httpGet(port, alpha, "/")).headers["x-app-pid"];
      const betaPid = (await httpGet(port, beta, "/")).headers["x-app-pid"];
      expect(alphaPid).not.toBe(betaPid);
      const gotPids = gets.map((g) => `${g.status} pid ${g.headers["x-app-pid"]}`);
      expect({
        requestsAnsweredByAnotherApp: gotPids.filter((p) => p !== `200 pid ${betaPid}`).length,
        websocketsToAnotherApp: sockets.filter((p) => p !== `pid ${betaPid}`).length,
      }).toEqual({ requestsAnsweredByAnotherApp: 0, websocketsToAnotherApp: 0 });
    } finally {
      for (const c of refusals) c.destroy();
    }
  }, 90_000);
});
