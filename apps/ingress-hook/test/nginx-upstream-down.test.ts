import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActivatorChain, startActivatorChain } from "./support/activator-chain.js";
import { httpGet } from "./support/http-get.js";
import { freePort, requireNginx } from "./support/nginx-process.js";

// nginx (infra/nginx/nginx.conf) -> the hook -> the real @thaw/activator for activations, with nginx's
// activator upstream (the request path) pointing at an activator that is gone: first one that accepts and
// closes every connection (killed mid-request), then nothing at all (its Service lists no pod). That is what
// the real node showed when the activator pod was killed under a cold burst: nginx answered the requests the
// hook let go through it 502, with no Retry-After. They must be 503 + Retry-After, and an app's own 502
// must still reach the client as the app sent it.
const TOKEN = "activator-token-upstream-down";
let chain: ActivatorChain;
let closing: net.Server;

/** A pod stand-in answering the activator's probe, and 502 with its own body to anything else. */
const pod = () =>
  http.createServer((req, res) => {
    if (req.headers["k-network-probe"] === "queue") {
      res.writeHead(200, { "content-type": "text/plain" }).end("queue");
      return;
    }
    res.writeHead(502, { "content-type": "text/plain" }).end("the app's own 502");
  });
const app = pod();
// The "refused" revision's own pod, started only by its own activation: sharing `app`, its pod could be
// probed ready (and the revision warm, straight to the pod) before its request, which is then the app's 502.
const refusedApp = pod();

beforeAll(async () => {
  requireNginx();
  const appPort = await freePort();
  const refusedPort = await freePort();
  closing = net.createServer((socket) => socket.destroy());
  await new Promise<void>((r) => closing.listen(0, "127.0.0.1", () => r()));
  const services = ["reset", "refused", "app"].map((name) => ({
    name,
    namespace: "default",
    hosts: [`${name}.localhost`],
  }));
  chain = await startActivatorChain({
    token: TOKEN,
    revisions: services.map((s) => ({
      ...s,
      endpoints: [`127.0.0.1:${s.name === "refused" ? refusedPort : appPort}`],
    })),
    services,
    // The pod starts on the first cold request, so that request is held and let go through the activator.
    overrides: {
      scaler: {
        poke: (key) => {
          const [server, port] = key.name === "refused" ? [refusedApp, refusedPort] : [app, appPort];
          if (!server.listening) server.listen(port, "127.0.0.1");
        },
      },
    },
    nginxActivatorPort: (closing.address() as net.AddressInfo).port,
  });
}, 30_000);

afterAll(async () => {
  await chain?.close();
  closing?.close();
  app?.close();
  refusedApp?.close();
});

describe("nginx in front of an activator that is gone", () => {
  it("answers the requests let go through it 503 + Retry-After, closed or refused, never a bare 502", async () => {
    // Held while cold (its pod starts now), so the hook lets it go through the activator, which closes
    // the connection.
    const reset = await httpGet(chain.port, "reset.localhost", "/a");
    expect([reset.status, reset.headers["retry-after"]]).toEqual([503, "1"]);
    expect(JSON.parse(reset.body)).toMatchObject({ error: { code: "ERR_UPSTREAM" } });
    // Nothing listens there any more: the connection is refused. The pod is up, but this revision was
    // never activated, so it is held too.
    await new Promise<void>((r) => closing.close(() => r()));
    const refused = await httpGet(chain.port, "refused.localhost", "/b");
    expect([refused.status, refused.headers["retry-after"]]).toEqual([503, "1"]);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: "ERR_UPSTREAM" } });
  });

  it("passes an app's own 502 through unchanged", async () => {
    // The first request is held and refused (the activator is gone); once the hook knows the pod is
    // ready, requests go straight to it and its 502 comes back as it sent it.
    const answers: string[] = [];
    for (let i = 0; i < 100 && !answers.includes("502 the app's own 502"); i++) {
      const a = await httpGet(chain.port, "app.localhost", `/c/${i}`);
      answers.push(`${a.status} ${a.status === 503 ? a.headers["retry-after"] : a.body}`);
      if (a.status === 503) await new Promise((r) => setTimeout(r, 50));
    }
    expect(answers.at(-1)).toBe("502 the app's own 502");
    expect(answers.filter((a) => a !== "502 the app's own 502" && a !== "503 1")).toEqual([]);
  });
});
