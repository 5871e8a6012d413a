import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ColdStartRecord, ScaleRecord } from "@thaw/protocol";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./support/chromium.js";
import { appService, helloApp, request } from "./support/stack-harness.js";
import { startUp, type Up, type UpRun, until } from "./support/up-process.js";

const here = dirname(fileURLToPath(import.meta.url));
/** CI keeps this folder as artifacts (.ci/run prints where it is). */
const SCREENSHOTS = join(here, "../../../artifacts/screenshots");
const TOKEN = "dashboard-browser-token-0123456789";
const HOST = { host: "hello.localhost" };
const PHASES = ["queued", "scaleDecision", "podStarted", "firstReady", "firstByte"];

/** What the page's script holds (window.thawDashboard). */
interface PageState {
  connected: boolean;
  coldStarts: ColdStartRecord[];
  scales: ScaleRecord[];
}

describe("the /_thaw/ dashboard in real Chromium under a real thaw up (cold start, burst, back to zero)", () => {
  let run: UpRun;
  let up: Up;
  let browser: Browser;
  let page: Page;
  const requested: string[] = [];

  beforeAll(async () => {
    run = await startUp(
      "thaw-dash",
      [
        "listen: 127.0.0.1:0",
        `token: ${TOKEN}`,
        // Short windows so the revision is back at zero within seconds of the burst.
        "autoscaler: { stable-window: 6s, scale-to-zero-grace-period: 2s }",
        "drain: { quietPeriod: 100ms }",
        "services:",
        ...appService(
          "hello",
          helloApp,
          [
            "    containerConcurrency: 1",
            "    timeoutSeconds: 30",
            "    autoscaling: { target: 1, max-scale: 3 }",
          ],
          { STARTUP_DELAY_MS: "300", WORK_MS: "400" },
        ),
      ],
      ["--log-format", "json"],
    );
    up = run.up;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on("request", (r) => requested.push(r.url()));
  });

  afterAll(async () => {
    await browser?.close();
    await run?.dispose();
  });

  // Expressions as strings: this package's TypeScript has no DOM library.
  const state = async () => (await page.evaluate("window.thawDashboard")) as PageState;
  /** The chart's ready-pods series (uPlot data index 4). */
  const ready = async () => (await page.evaluate("window.thawDashboard.chartData()[4]")) as number[];

  it("asks for the token, then follows the live stream", async () => {
    const first = await page.goto(`${up.url}/_thaw/`);
    expect(first?.status()).toBe(401);
    await page.fill('input[name="token"]', TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    await page.waitForFunction("window.thawDashboard && window.thawDashboard.connected", undefined, {
      timeout: 20_000,
    });
    await page.locator('tr[data-revision="default/hello"]').waitFor({ timeout: 20_000 });
    expect(await page.locator("#conn").textContent()).toBe("live");
  });

  it("a cold start shows as a timeline with all five phases and their durations", async () => {
    const r = await request(up.url, { headers: HOST });
    expect(r.status).toBe(200);
    await page.waitForFunction("window.thawDashboard.coldStarts.length >= 1", undefined, { timeout: 30_000 });
    const [record] = (await state()).coldStarts as [ColdStartRecord];
    expect(record.phases.map((p) => p.phase)).toEqual(PHASES);
    const item = page.locator("#cold-starts li.cs").first();
    await item.waitFor({ timeout: 10_000 });
    const drawn = await item
      .locator("ol.phases li")
      .evaluateAll((lis) =>
        lis.map((li) => [li.getAttribute("data-phase"), li.querySelector("b")?.textContent ?? ""]),
      );
    expect(drawn.map(([p]) => p)).toEqual(PHASES);
    for (const [, ms] of drawn) expect(ms).toMatch(/^\d+ ms$/);
    expect(await item.locator(".timeline .seg").count()).toBe(5);
    expect(await item.locator(".timeline").getAttribute("aria-label")).toContain("first byte");
    // The phases add up to the total, and the pod's start-up (300 ms) is inside "first ready probe".
    expect(record.phases.reduce((n, p) => n + p.ms, 0)).toBe(record.totalMs);
    expect(record.phases[3]?.ms).toBeGreaterThanOrEqual(250);
  });

  it("a burst scales up, then the revision goes back to zero: 0 -> N -> 0 on the chart", async () => {
    const burst = await Promise.all(Array.from({ length: 24 }, () => request(up.url, { headers: HOST })));
    expect(burst.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    await until(async () => Math.max(...(await ready())) >= 2, 30_000, "the chart to show >= 2 ready pods");
    await until(
      async () => {
        const series = await ready();
        return series.length > 0 && series[series.length - 1] === 0 && Math.max(...series) >= 2;
      },
      60_000,
      "the chart to show the revision back at zero",
    );
    await page.screenshot({ path: shot("dashboard-1280x800.png") });
    const series = await ready();
    const peak = series.indexOf(Math.max(...series));
    expect(series.slice(0, peak)).toContain(0);
    expect(series[series.length - 1]).toBe(0);
    const reasons = (await state()).scales.map((s) => s.reason);
    expect(reasons).toContain("request while scaled to zero");
    expect(reasons.some((r) => r.startsWith("idle"))).toBe(true);
    expect(await page.locator("#scale-events li").count()).toBeGreaterThanOrEqual(3);
  });

  it("keyboard focus reaches the controls, with a visible focus style", async () => {
    await page.locator("body").focus();
    const seen: string[] = [];
    for (let i = 0; i < 12 && !(seen.includes("revision") && seen.includes("pause")); i++) {
      await page.keyboard.press("Tab");
      seen.push((await page.evaluate("document.activeElement ? document.activeElement.id : ''")) as string);
    }
    expect(seen).toContain("revision");
    expect(seen).toContain("pause");
    await page.focus("#pause");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Shift+Tab");
    expect(await page.evaluate("getComputedStyle(document.activeElement).outlineStyle")).not.toBe("none");
    await page.keyboard.press("Enter");
    expect(await page.getAttribute("#pause", "aria-pressed")).toBe("true");
    await page.keyboard.press("Enter");
    expect(await page.getAttribute("#pause", "aria-pressed")).toBe("false");
  });

  it("at 390 px wide nothing overflows sideways", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(300);
    const widths = (await page.evaluate(
      "({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })",
    )) as { scroll: number; client: number };
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    await page.screenshot({ path: shot("dashboard-390.png"), fullPage: true });
  });

  it("the page asked nothing of anyone but the gateway", () => {
    const origin = new URL(up.url).origin;
    expect(requested.length).toBeGreaterThan(0);
    expect(requested.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith("data:"))).toEqual([]);
  });

  it("--log-format json printed one line per scale event and cold start, with the page's fields", async () => {
    const lines = up.out
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const page = await state();
    const cold = lines.filter((l) => l.msg === "coldstart");
    expect(cold.length).toBeGreaterThanOrEqual(1);
    const { level, time, msg, ...fields } = cold[0] as Record<string, unknown>;
    expect({ level, msg, time: typeof time }).toEqual({ level: "info", msg: "coldstart", time: "string" });
    expect(fields).toEqual(page.coldStarts[0]);
    const scales = lines.filter((l) => l.msg === "scale").map(({ level: _l, time: _t, msg: _m, ...f }) => f);
    expect(scales).toEqual(page.scales);
  });

  it("GET /_thaw/metrics has thaw_cold_start_phase_seconds for each phase (token required)", async () => {
    expect((await request(up.url, { path: "/_thaw/metrics" })).status).toBe(401);
    const r = await request(up.url, {
      path: "/_thaw/metrics",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(r.status).toBe(200);
    for (const phase of PHASES.slice(1)) {
      expect(r.body).toMatch(
        new RegExp(
          `thaw_cold_start_phase_seconds_count\\{namespace="default",revision="hello",phase="${phase}"\\} [1-9]`,
        ),
      );
    }
  });
});

function shot(name: string): string {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return join(SCREENSHOTS, name);
}
