/**
 * Issue 26: an upgrade the app refuses must not leave the client's connection spliced to the pod. With
 * `thaw up` as the front end, a refused upgrade is answered as an ordinary response and the connection
 * closes, so nothing the client sends next reaches an app without the gateway's host table and header
 * rules; refused-upgrade sockets hold no capacity and do not hold SIGTERM; accepted websockets (tunnels)
 * close on their idle limit and on SIGTERM. Real stack, real queue-proxies, real app processes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { Stack } from "../src/stack.js";
import { type FrontProxy, startFrontProxy } from "./support/front-proxy.js";
import { type RawSocket, rawSocket, statuses } from "./support/raw-socket.js";
import {
  appService,
  echoApp,
  echoService,
  request,
  stackFrom,
  untilAnswered,
} from "./support/stack-harness.js";

const dir = mkdtempSync(join(tmpdir(), "thaw-upgrade-refused-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A websocket handshake the echo app answers `status` instead of 101. */
function refusedUpgrade(host: string, status: number): string {
  return (
    `GET /ws?refuse=${status} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
    "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
  );
}

/** A request the gateway would never pass on as written: its Host names no service, and it carries
 * the headers README's Security section keeps from every pod. */
function smuggled(arrived: string): string {
  return (
    `GET /next?arrived=${arrived} HTTP/1.1\r\nHost: evil.example\r\nX-Forwarded-For: 203.0.113.9\r\n` +
    "Forwarded: for=203.0.113.9\r\nK-Network-Probe: activator\r\nK-Proxy-Request: activator\r\n" +
    "X-Thaw-Route-Token: stolen\r\n\r\n"
  );
}

/** The file's lines (none when it does not exist). */
function lines(file: string): string[] {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

describe("thaw up as the front end: a refused upgrade (real stack, real pods)", () => {
  let stack: Stack;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ stack, dispose } = await stackFrom([
      "autoscaler: { stable-window: 6s, scale-to-zero-grace-period: 30s }",
      "services:",
      ...echoService(["    timeoutSeconds: 30"]),
    ]));
    await untilAnswered(stack.url, { host: "echo.localhost" }, "echo is up");
  }, 60_000);
  afterAll(() => dispose?.(), 30_000);

  it.each([426, 400, 200])(
    "%i: answered as an ordinary response, then the connection closes; the next request never reaches the app",
    async (status) => {
      const arrived = join(dir, `arrived-${status}`);
      writeFileSync(arrived, "");
      const c = await rawSocket(stack.url);
      try {
        c.write(refusedUpgrade("echo.localhost", status));
        expect(await c.until(() => statuses(c.text).length === 1, 10_000)).toBe(true);
        expect(statuses(c.text)).toEqual([status]);
        // The app saw the gateway's headers on the upgrade request, not the client's.
        const body = JSON.parse(c.text.slice(c.text.indexOf("\r\n\r\n") + 4));
        expect(body.headers.host).not.toBe("evil.example");
        c.write(smuggled(arrived));
        // The gateway closes after the answer; the second request gets no answer from any app.
        await c.until(() => c.closed || statuses(c.text).length > 1, 10_000);
        expect(c.text).not.toContain("evil.example");
        expect(statuses(c.text)).toEqual([status]);
        expect(c.closed, "the connection closes after the refusal").toBe(true);
      } finally {
        c.destroy();
      }
      // An ordinary request after it arrives (the app is reachable), and it is the only one recorded.
      const r = await request(stack.url, {
        path: `/after?arrived=${arrived}`,
        headers: { host: "echo.localhost" },
      });
      expect(r.status).toBe(200);
      expect(lines(arrived).map((l) => l.split(" ")[2]?.split("?")[0])).toEqual(["/after"]);
    },
    40_000,
  );
});

describe("refused-upgrade sockets hold no capacity; tunnels idle out and close on SIGTERM", () => {
  let stack: Stack;
  let dispose: () => Promise<void>;
  const open: RawSocket[] = [];
  beforeAll(async () => {
    ({ stack, dispose } = await stackFrom([
      "tunnelIdleTimeout: 1500ms",
      "autoscaler: { stable-window: 6s, scale-to-zero-grace-period: 30s }",
      "services:",
      ...appService("cap", echoApp, [
        "    containerConcurrency: 2",
        "    timeoutSeconds: 5",
        "    autoscaling: { max-scale: 1 }",
      ]),
    ]));
    await untilAnswered(stack.url, { host: "cap.localhost" }, "cap is up");
  }, 60_000);
  afterAll(async () => {
    for (const c of open) c.destroy();
    await dispose?.();
  }, 30_000);

  it("two refused upgrades left open by their clients do not take a CC 2, max-scale 1 revision's capacity", async () => {
    const mine: RawSocket[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const c = await rawSocket(stack.url);
        mine.push(c);
        c.write(refusedUpgrade("cap.localhost", 426));
        expect(await c.until(() => statuses(c.text).length === 1, 10_000)).toBe(true);
      }
      const started = Date.now();
      const answers = await Promise.all(
        [1, 2].map(() => request(stack.url, { path: "/normal", headers: { host: "cap.localhost" } })),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      for (const c of mine) c.destroy();
    }
  }, 40_000);

  it("an accepted websocket that sends nothing is closed after tunnelIdleTimeout; one in use stays open", async () => {
    const idle = new WebSocket(`${stack.url.replace("http", "ws")}/ws`, {
      headers: { host: "cap.localhost" },
    });
    const busy = new WebSocket(`${stack.url.replace("http", "ws")}/ws`, {
      headers: { host: "cap.localhost" },
    });
    try {
      await Promise.all([idle, busy].map((ws) => new Promise((r, j) => ws.once("open", r).once("error", j))));
      const opened = Date.now();
      const ping = setInterval(() => busy.send("still here"), 300);
      const idleClosed = await new Promise<number>((resolve) => {
        idle.once("close", () => resolve(Date.now() - opened));
        setTimeout(() => resolve(-1), 10_000);
      });
      clearInterval(ping);
      expect(idleClosed, "the idle tunnel closed").toBeGreaterThanOrEqual(1000);
      expect(idleClosed).toBeLessThan(6000);
      expect(busy.readyState).toBe(WebSocket.OPEN);
    } finally {
      idle.terminate();
      busy.terminate();
    }
  }, 40_000);

  it("SIGTERM (stack.close) finishes within its bound with a refused-upgrade socket and a websocket open", async () => {
    const c = await rawSocket(stack.url);
    open.push(c);
    c.write(refusedUpgrade("cap.localhost", 426));
    expect(await c.until(() => statuses(c.text).length === 1, 10_000)).toBe(true);
    const ws = new WebSocket(`${stack.url.replace("http", "ws")}/ws`, { headers: { host: "cap.localhost" } });
    await new Promise((r, j) => ws.once("open", r).once("error", j));
    const wsClosed = new Promise((r) => ws.once("close", r));
    const started = Date.now();
    const outcome = await Promise.race([
      stack.close().then(() => "closed"),
      new Promise((r) => setTimeout(() => r("still running after 20 s"), 20_000)),
    ]);
    expect(outcome).toBe("closed");
    await wsClosed;
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 40_000);
});

describe.each(["nginx", "caddy"] as const)(
  "%s (upstream keepalive) in front of thaw up: a refused upgrade to alpha",
  (kind) => {
    const TOKEN = "t0ken-for-the-upgrade-suite";
    let stack: Stack;
    let dispose: () => Promise<void>;
    let front: FrontProxy;
    beforeAll(async () => {
      ({ stack, dispose } = await stackFrom([
        `token: ${TOKEN}`,
        "autoscaler: { stable-window: 6s, scale-to-zero-grace-period: 30s }",
        "services:",
        ...appService("alpha", echoApp, ["    timeoutSeconds: 30"], { SERVING_POD: "alpha-app" }),
        ...appService("beta", echoApp, ["    timeoutSeconds: 30"], { SERVING_POD: "beta-app" }),
      ]));
      front = await startFrontProxy(kind, Number(new URL(stack.url).port));
      await untilAnswered(front.url, { host: "alpha.localhost" }, "alpha through the proxy");
      await untilAnswered(front.url, { host: "beta.localhost" }, "beta through the proxy");
    }, 60_000);
    afterAll(async () => {
      await front?.stop();
      await dispose?.();
    }, 30_000);

    it("leaves no pooled connection spliced: other clients' requests for beta are answered by beta, the operator's token reaches no app", async () => {
      const clients: RawSocket[] = [];
      try {
        for (const status of [426, 400, 200]) {
          const c = await rawSocket(front.url);
          clients.push(c);
          c.write(refusedUpgrade("alpha.localhost", status));
          expect(await c.until(() => statuses(c.text).length === 1, 10_000)).toBe(true);
          expect(statuses(c.text)).toEqual([status]);
        }
        const answeredBy: string[] = [];
        for (let i = 0; i < 6; i++) {
          const r = await request(front.url, { path: `/other-${i}`, headers: { host: "beta.localhost" } });
          answeredBy.push(r.status === 200 ? JSON.parse(r.body).pod : `status ${r.status}`);
        }
        expect(answeredBy).toEqual(Array(6).fill("beta-app"));
        const api = await request(front.url, {
          path: "/_thaw/api/revisions",
          headers: { host: "beta.localhost", authorization: `Bearer ${TOKEN}` },
        });
        expect(api.body).not.toContain(TOKEN);
        expect(api.status).toBe(200);
        expect(Array.isArray(JSON.parse(api.body))).toBe(true);
      } finally {
        for (const c of clients) c.destroy();
      }
    }, 60_000);
  },
);
