import { systemClock } from "@thaw/clock";
import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import {
  checkScaleSecret,
  parseScaleRequest,
  ScaleWebhookHeader,
  scaleRequest,
  scaleWebhookHandler,
  sendScaleWebhook,
  signScaleWebhook,
  verifyScaleWebhook,
} from "./index.js";

const SECRET = "0123456789abcdef-shared";
const T0 = Date.parse("2026-12-01T15:00:00.000Z");
const req = scaleRequest({ namespace: "default", name: "hello", desiredScale: 1, reason: "activation" }, T0);

async function signed(body: string, at = T0, secret = SECRET): Promise<Request> {
  const headers = new Headers(await signScaleWebhook(secret, body, at));
  return new Request("http://r/v1/scale", { method: "POST", headers, body });
}

describe("scale webhook body (thaw.scale/v1)", () => {
  it("builds the one shape and parses it back", () => {
    expect(req).toEqual({
      version: "thaw.scale/v1",
      namespace: "default",
      name: "hello",
      desiredScale: 1,
      reason: "activation",
      sentAt: "2026-12-01T15:00:00.000Z",
    });
    expect(parseScaleRequest(JSON.parse(JSON.stringify(req)))).toEqual({ ok: true, value: req });
  });

  it("names every bad field, old shapes included", () => {
    const old = parseScaleRequest({ namespace: "default", name: "hello", minReplicas: 1 });
    expect(old.ok).toBe(false);
    const paths = old.ok ? [] : old.issues.map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining(["version", "desiredScale", "reason", "sentAt", "minReplicas"]),
    );
    const neg = parseScaleRequest({ ...req, desiredScale: -1 });
    expect(neg.ok ? "" : neg.issues[0]?.message).toMatch(/whole number/);
  });

  it("refuses short secrets with the fix", () => {
    expect(checkScaleSecret("short", "SCALE_WEBHOOK_SECRET")?.message).toMatch(/at least 16/);
    expect(checkScaleSecret(SECRET, "X")).toBeUndefined();
  });
});

describe("signing and verifying (HMAC-SHA256 over timestamp.body)", () => {
  const body = JSON.stringify(req);

  it("verifies what it signed, and nothing else", async () => {
    const h = new Headers(await signScaleWebhook(SECRET, body, T0));
    expect(h.get(ScaleWebhookHeader.timestamp)).toBe(String(T0 / 1000));
    expect(h.get(ScaleWebhookHeader.signature)).toMatch(/^v1=[0-9a-f]{64}$/);
    expect((await verifyScaleWebhook(SECRET, h, body, T0 + 1000)).ok).toBe(true);
    expect(
      await verifyScaleWebhook(SECRET, h, body.replace('"desiredScale":1', '"desiredScale":9'), T0),
    ).toEqual({
      ok: false,
      message: "signature does not match",
    });
    expect((await verifyScaleWebhook("another-secret-of-16", h, body, T0)).ok).toBe(false);
  });

  it("refuses a timestamp outside the window and malformed headers", async () => {
    const h = new Headers(await signScaleWebhook(SECRET, body, T0));
    const late = await verifyScaleWebhook(SECRET, h, body, T0 + 301_000);
    expect(late.ok ? "" : late.message).toMatch(/outside the 300 s window/);
    const none = await verifyScaleWebhook(SECRET, new Headers(), body, T0);
    expect(none.ok ? "" : none.message).toMatch(/x-thaw-timestamp/);
  });
});

describe("scaleWebhookHandler (the receiver)", () => {
  function receiver() {
    const clock = new ManualClock(T0);
    const applied: number[] = [];
    const handle = scaleWebhookHandler({
      secret: SECRET,
      clock,
      apply: (r) => {
        if (r.name !== "hello") return "unknown";
        applied.push(r.desiredScale);
        return "applied";
      },
    });
    return { clock, applied, handle };
  }

  it("applies a signed request once; a replay, a bad signature or a stale one is 401 and changes nothing", async () => {
    const { applied, handle } = receiver();
    const body = JSON.stringify(req);
    const ok = await handle(await signed(body));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ namespace: "default", name: "hello", desiredScale: 1 });
    expect((await handle(await signed(body))).status).toBe(401);
    expect((await handle(await signed(body, T0, "wrong-secret-of-16+"))).status).toBe(401);
    expect((await handle(await signed(body, T0 - 600_000))).status).toBe(401);
    expect(applied).toEqual([1]);
  });

  it("400 names the field, 404 for a service it does not run", async () => {
    const { handle } = receiver();
    const bad = await handle(await signed(JSON.stringify({ ...req, desiredScale: "2" })));
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/desiredScale/);
    const ghost = await handle(await signed(JSON.stringify({ ...req, name: "ghost" })));
    expect(ghost.status).toBe(404);
  });
});

describe("sendScaleWebhook", () => {
  it("retries 5xx and network errors with backoff, signing each try afresh", async () => {
    const seen: string[] = [];
    let n = 0;
    const r = await sendScaleWebhook({
      url: "http://scaler/v1/scale",
      secret: SECRET,
      request: req,
      clock: systemClock,
      backoffMs: 1,
      fetch: async (q) => {
        seen.push(q.headers.get(ScaleWebhookHeader.signature) ?? "");
        n++;
        if (n === 1) throw new TypeError("fetch failed");
        if (n === 2) return new Response("busy", { status: 503 });
        expect((await verifyScaleWebhook(SECRET, q.headers, await q.text(), Date.now())).ok).toBe(true);
        return Response.json({ ok: true });
      },
    });
    expect(r).toEqual({ attempts: 3, status: 200 });
    expect(seen.every((s) => /^v1=/.test(s))).toBe(true);
  });

  it("gives up at once on a 401 and says why", async () => {
    let n = 0;
    await expect(
      sendScaleWebhook({
        url: "http://scaler/v1/scale",
        secret: SECRET,
        request: req,
        clock: systemClock,
        backoffMs: 1,
        fetch: async () => {
          n++;
          return new Response("no", { status: 401 });
        },
      }),
    ).rejects.toThrow(/answered 401/);
    expect(n).toBe(1);
  });
});
