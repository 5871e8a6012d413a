import type { Browser, Page, Response as PwResponse } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./support/chromium.js";
import { appService, helloApp, request } from "./support/stack-harness.js";
import { startUp, type Up, type UpRun, until } from "./support/up-process.js";

// Issue 28.2 and 28.3 under a real `thaw up` and real Chromium: hello takes 3 s to start. A person's
// navigation gets the waiting page after the service's threshold (500 ms), and the app's own page replaces
// it once the revision is ready; the start is measured, so once hello is back at zero a caller that will
// not wait that long (Prefer: wait=1, grpc-timeout: 1S) gets 503 + a Retry-After of that start at once.
const START_MS = 3000;

describe("the waiting page in Chromium, and Retry-After from measured starts, under a real thaw up", () => {
  let run: UpRun;
  let up: Up;
  let browser: Browser;
  let page: Page;
  const answers: { url: string; status: number }[] = [];

  beforeAll(async () => {
    run = await startUp("thaw-waitpage", [
      "listen: 127.0.0.1:0",
      "autoscaler: { stable-window: 6s, scale-to-zero-grace-period: 1s }",
      "drain: { quietPeriod: 100ms }",
      "services:",
      ...appService("hello", helloApp, ["    waitingPage: { after: 500ms }"], {
        STARTUP_DELAY_MS: String(START_MS),
      }),
    ]);
    up = run.up;
    await up.ready();
    browser = await launchChromium();
    page = await browser.newPage();
    page.on("response", (r: PwResponse) => {
      if (r.request().isNavigationRequest()) answers.push({ url: r.url(), status: r.status() });
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await run?.dispose();
  });

  it("shows the page, then the app's own page replaces it, and no navigation is lost", async () => {
    const url = `http://hello.localhost:${new URL(up.url).port}/greeting?x=1`;
    const began = Date.now();
    const first = await page.goto(url);
    expect(first?.status()).toBe(503);
    expect(Date.now() - began).toBeLessThan(START_MS);
    expect(await page.title()).toBe("hello is starting");
    expect(await page.getAttribute("html", "lang")).toBe("en");
    expect(await page.getAttribute("#thaw-status", "aria-live")).toBe("polite");
    // The page follows the start and reloads the same URL once ready: the app's text replaces it.
    // (The page's CSP allows no eval, so the test waits on the navigation, not on a page expression.)
    const app = await page.waitForResponse((r) => r.request().isNavigationRequest() && r.status() === 200, {
      timeout: 30_000,
    });
    expect(app.url()).toBe(url);
    await page.waitForLoadState("load");
    expect(await page.textContent("body")).toMatch(/^hello from /u);
    expect(page.url()).toBe(url);
    expect(answers.map((a) => a.status)).toEqual([503, 200]);
    expect(answers.every((a) => a.url === url)).toBe(true);
  }, 60_000);

  it("after the measured start, a caller that will not wait that long gets 503 + Retry-After at once", async () => {
    const port = new URL(up.url).port;
    const readyPods = async () => {
      const r = await request(up.url, {
        path: "/_thaw/api/revisions",
        headers: { host: `127.0.0.1:${port}` },
      });
      const list = JSON.parse(r.body) as { name: string; readyPods: number }[];
      return list.find((x) => x.name === "hello")?.readyPods ?? -1;
    };
    await until(async () => (await readyPods()) > 0, 30_000, "hello up after the first test");
    await until(async () => (await readyPods()) === 0, 40_000, "hello back at zero");
    for (const h of [{ prefer: "wait=1" }, { "grpc-timeout": "1S" }] as Record<string, string>[]) {
      const began = Date.now();
      const r = await request(up.url, { headers: { host: "hello.localhost", ...h } });
      expect(r.status).toBe(503);
      expect(Date.now() - began).toBeLessThan(1000);
      expect(Number(r.headers["retry-after"])).toBeGreaterThanOrEqual(START_MS / 1000);
    }
    // A caller with time enough is held and served: the fast answers started hello.
    const patient = await request(up.url, { headers: { host: "hello.localhost", prefer: "wait=30" } });
    expect(patient.status).toBe(200);
  }, 90_000);
});
