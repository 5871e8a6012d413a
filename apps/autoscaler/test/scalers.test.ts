import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyScaleWebhook } from "@thaw/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { WebhookScaler } from "../src/scalers/webhook.js";

const SECRET = "scaler-test-secret-0123";

const rev = { namespace: "default", name: "hello" };
let server: Server | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<string> {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => handler(req, res, body));
  });
  await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("WebhookScaler", () => {
  it("POSTs the signed thaw.scale/v1 body and marks the static endpoints ready while above zero", async () => {
    const calls: { body: string; auth?: string; type?: string; signed: boolean }[] = [];
    const base = await listen((req, res, body) => {
      const headers = new Headers(req.headers as Record<string, string>);
      void verifyScaleWebhook(SECRET, headers, body, Date.now()).then((v) => {
        calls.push({
          body,
          auth: req.headers.authorization,
          type: req.headers["content-type"],
          signed: v.ok,
        });
        res.writeHead(204).end();
      });
    });
    const scaler = new WebhookScaler({ secret: SECRET });
    scaler.register({
      ...rev,
      url: `${base}/scale`,
      headers: { authorization: "Bearer x" },
      endpoints: ["10.1.0.5:8012"],
    });
    expect(scaler.pods(rev).map((p) => p.ready)).toEqual([false]);
    await scaler.scale(rev, 2);
    expect(JSON.parse(calls[0]?.body ?? "")).toEqual({
      version: "thaw.scale/v1",
      namespace: "default",
      name: "hello",
      desiredScale: 2,
      reason: "thaw-autoscaler: desired scale 2",
      sentAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(calls[0]).toMatchObject({ auth: "Bearer x", type: "application/json", signed: true });
    expect(scaler.pods(rev)).toEqual([
      { name: "10.1.0.5:8012", address: "10.1.0.5:8012", ready: true, startedAt: 0 },
    ]);
  });

  it("reports a non-2xx answer as a failed scale, after retrying a 5xx", async () => {
    let n = 0;
    const base = await listen((_req, res) => {
      n++;
      res.writeHead(500).end("no");
    });
    const scaler = new WebhookScaler({ secret: SECRET, backoffMs: 1 });
    scaler.register({ ...rev, url: base, endpoints: [] });
    await expect(scaler.scale(rev, 1)).rejects.toThrow(/answered 500/);
    expect(n).toBe(4);
  });
});
