import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeActivator } from "./support/fake-activator.js";
import { type FakeChain, startFakeChain } from "./support/fake-chain.js";
import { httpGet } from "./support/http-get.js";
import { HOOK_TOKEN, type NginxProcess, requireNginx, startNginxForHook } from "./support/nginx-process.js";

// The waiting page through a real Debian nginx running infra/nginx/nginx.conf: auth_request passes no body,
// so the hook answers 401 and nginx's `error_page 401 = @thaw_page` fetches the page (and the page's polls)
// from the hook's /nginx/page. hello takes 3 s to start; the page comes after 300 ms.
const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

let chain: FakeChain;
let activator: FakeActivator;
let nginx: NginxProcess;
let port: number;

beforeAll(async () => {
  requireNginx();
  chain = await startFakeChain(
    [
      { namespace: "default", name: "hello", startupDelayMs: 3000 },
      { namespace: "default", name: "shop", startupDelayMs: 3000 },
    ],
    {
      token: HOOK_TOKEN,
      services: [
        { name: "hello", namespace: "default", hosts: ["hello.localhost"] },
        { name: "shop", namespace: "default", hosts: ["shop.localhost"] },
      ],
      activationTimeoutMs: 20_000,
      activatorUpstream: null,
      waitingPageFor: () => ({ afterMs: 300 }),
    },
  );
  ({ activator } = chain);
  ({ nginx, port } = await startNginxForHook(chain.hook.port));
}, 30_000);

let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  await nginx?.stop();
  await chain?.close();
});

describe("the waiting page through nginx + hook (real nginx)", () => {
  it("a browser gets the page, its poll is held until ready, and the reload reaches the app; nothing is lost", async () => {
    const began = Date.now();
    const curl = httpGet(port, "hello.localhost", "/shop?x=1", { accept: "*/*" });
    const page = await httpGet(port, "hello.localhost", "/shop?x=1", { accept: BROWSER });
    expect(Date.now() - began).toBeLessThan(2500);
    expect(page.status).toBe(503);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["cache-control"]).toBe("no-store");
    expect(Number(page.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(page.body).toContain("<title>hello is starting</title>");
    expect(page.body).toContain('role="status"');
    const poll = await httpGet(port, "hello.localhost", "/shop?x=1", { "x-thaw-wait": "poll" });
    expect(poll.headers["x-thaw-wait"]).toBe("ready");
    expect(Date.now() - began).toBeGreaterThanOrEqual(2900);
    const reload = await httpGet(port, "hello.localhost", "/shop?x=1", { accept: BROWSER });
    expect(reload.status).toBe(200);
    expect(JSON.parse(reload.body)).toMatchObject({ method: "GET", url: "/shop?x=1" });
    // The client that is not a browser was held and answered by the app, not the page.
    const held = await curl;
    expect(held.status).toBe(200);
    expect(JSON.parse(held.body)).toMatchObject({ url: "/shop?x=1" });
    expect(activator.starts).toBe(1);
    // Once warm, a poll through nginx never reaches the app: nginx's auth cache is bypassed for polls.
    const warmPoll = await httpGet(port, "hello.localhost", "/shop", { "x-thaw-wait": "poll" });
    expect(warmPoll.headers["x-thaw-wait"]).toBe("ready");
    expect(warmPoll.status).toBe(200);
  });

  it("in real Chromium: the page appears, then the app's own answer replaces it, and no navigation is lost", async () => {
    // Debian's Chromium, as apps/cli/test/support/chromium.ts launches it (root: no sandbox).
    browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    const page = await browser.newPage();
    const navigations: number[] = [];
    page.on("response", (r) => {
      if (r.request().isNavigationRequest()) navigations.push(r.status());
    });
    const url = `http://shop.localhost:${port}/cart?id=7`;
    const first = await page.goto(url);
    expect(first?.status()).toBe(503);
    expect(await page.title()).toBe("shop is starting");
    // The page's CSP allows no eval: wait on the navigation the page makes once the revision is ready.
    const app = await page.waitForResponse((r) => r.request().isNavigationRequest() && r.status() === 200, {
      timeout: 30_000,
    });
    expect(app.url()).toBe(url);
    await page.waitForLoadState("load");
    expect(JSON.parse((await page.textContent("body")) ?? "")).toMatchObject({
      method: "GET",
      url: "/cart?id=7",
    });
    expect(navigations).toEqual([503, 200]);
  }, 60_000);
});
