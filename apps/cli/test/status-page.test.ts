import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { DashboardFeed, type RevisionStatus } from "@thaw/autoscaler-service";
import { systemClock } from "@thaw/clock";
import type { IngressHook } from "@thaw/ingress-hook";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway } from "../src/gateway.js";
import { launchChromium } from "./support/chromium.js";

const status: RevisionStatus = {
  namespace: "default",
  name: "hello",
  desiredScale: 0,
  readyPods: 0,
  panic: false,
  mode: "proxy",
  stableConcurrency: 0,
  panicConcurrency: 0,
  excessBurstCapacity: -211,
  lastColdStartMs: null,
  scaleError: null,
  podProblem: null,
  warm: { window: null, hintUntilMs: null, minScale: 0 },
};

const notUsed = { fetch: () => new Response("not used", { status: 500 }) };

const TOKEN = "status-page-token-123456";

// A feed over a status the tests change by hand, sampled every 200 ms; no scale events, no target known.
const feed = new DashboardFeed({
  source: { on: () => () => {}, revisions: () => [{ ...status }], targetOf: () => undefined },
  clock: systemClock,
  sampleMs: 200,
});

describe("dashboard page in real Chromium, fed by a hand-made status", () => {
  let browser: Browser;
  let url = "";
  let securedUrl = "";
  let server: ReturnType<typeof serve>;
  let securedServer: ReturnType<typeof serve>;
  let otherUrl = "";
  let otherServer: ReturnType<typeof serve>;
  beforeAll(async () => {
    // A second server on the same host with the same token: a sign-in on the first must not open it.
    const other = gatewayWith(TOKEN);
    otherUrl = await new Promise<string>((resolve) => {
      otherServer = serve({ fetch: other.fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) =>
        resolve(`http://127.0.0.1:${info.port}`),
      );
    });
    const app = gatewayWith(undefined);
    const secured = gatewayWith(TOKEN);
    securedUrl = await new Promise<string>((resolve) => {
      securedServer = serve({ fetch: secured.fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) =>
        resolve(`http://127.0.0.1:${info.port}`),
      );
    });
    url = await new Promise<string>((resolve) => {
      server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) =>
        resolve(`http://127.0.0.1:${info.port}`),
      );
    });
    browser = await launchChromium();
    feed.start();
  });
  afterAll(async () => {
    feed.stop();
    await browser?.close();
    server?.close();
    securedServer?.close();
    otherServer?.close();
  });
  it("GET /_thaw/api/revisions returns exactly the contract's fields", async () => {
    const list = (await (await fetch(`${url}/_thaw/api/revisions`)).json()) as Record<string, unknown>[];
    expect(Object.keys(list[0] ?? {}).sort()).toEqual(Object.keys(status).sort());
  });

  it("shows each revision and follows its changes live (SSE samples)", async () => {
    const page = await browser.newPage();
    await page.goto(`${url}/_thaw/`);
    const row = page.locator('tr[data-revision="default/hello"]');
    await row.waitFor({ timeout: 10_000 });
    expect(await row.textContent()).toContain("proxy");
    // The stream pushes a sample a tick: a change of the status shows up without a reload.
    Object.assign(status, { desiredScale: 2, readyPods: 2, mode: "serve", lastColdStartMs: 812 });
    await page.waitForFunction(
      `document.querySelector('tr[data-revision="default/hello"]')?.textContent?.includes("812 ms")`,
      undefined,
      { timeout: 10_000 },
    );
    const cells = await row.locator("td").allInnerTexts();
    // ready, desired, mode, panic, stable, panic conc., target (unknown), excess burst, queue (unknown).
    expect(cells).toEqual([
      "default/hello",
      "2",
      "2",
      "serve",
      "no",
      "0",
      "0",
      "–",
      "-211 (activator in path)",
      "–",
      "812 ms",
    ]);
    await page.close();
  });

  it("with a token: the page asks for it once, then shows the revisions (HttpOnly cookie)", async () => {
    expect((await fetch(`${securedUrl}/_thaw/api/revisions`)).status).toBe(401);
    const page = await browser.newPage();
    const first = await page.goto(`${securedUrl}/_thaw/`);
    expect(first?.status()).toBe(401);
    await page.fill('input[name="token"]', "not-the-token-at-all");
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    expect(await page.textContent("body")).toContain("That is not the token");
    await page.fill('input[name="token"]', TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    await page.locator('tr[data-revision="default/hello"]').waitFor({ timeout: 10_000 });
    // Scripts on the page cannot read the token.
    expect(await page.evaluate("document.cookie")).toBe("");
    const [cookie] = await page.context().cookies();
    const port = new URL(securedUrl).port;
    expect(cookie).toMatchObject({
      name: `thaw_session_${port}`,
      httpOnly: true,
      sameSite: "Strict",
      path: "/_thaw/",
    });
    // Issue 26: the cookie is a signed session, never the token.
    expect(cookie?.value).not.toContain(TOKEN);
    expect(cookie?.value).toMatch(/^v1\.\d+\.[A-Za-z0-9_-]{43}$/);
    // Chromium sends the cookie to the other port too (cookies ignore ports): that server neither takes it
    // as a sign-in nor ever receives the token.
    const sent: string[] = [];
    page.on("request", (r) => {
      if (r.url().startsWith(otherUrl)) sent.push(r.headers().cookie ?? "");
    });
    const there = await page.goto(`${otherUrl}/_thaw/`);
    expect(there?.status()).toBe(401);
    expect(await page.textContent("body")).toContain("needs the token");
    expect(sent.join(";")).not.toContain(TOKEN);
    await page.close();
  });
});

function gatewayWith(token: string | undefined) {
  return createGateway({
    ...(token ? { token } : {}),
    // Only /_thaw/ routes are exercised; anything else (the favicon) is denied like an unrouted host.
    hook: {
      clock: { now: () => 0 },
      startSpan: () => undefined,
      tryDecide: () => ({ kind: "deny", status: 404, code: "ERR_UNKNOWN_REVISION", message: "not routed" }),
    } as unknown as IngressHook,
    activator: notUsed,
    forwardAuth: notUsed,
    forward: async () => {
      throw new Error("not used");
    },
    revisions: () => [{ ...status }],
    feed,
  });
}
