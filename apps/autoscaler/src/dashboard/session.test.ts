import { ManualClock } from "@thaw/clock/testing";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { DashboardFeed } from "./feed.js";
import { dashboardRoutes } from "./routes.js";

const TOKEN = "session-token-0123456789";

function app(token = TOKEN) {
  const clock = new ManualClock(Date.parse("2026-12-01T15:00:00Z"));
  const feed = new DashboardFeed({
    source: { revisions: () => [], on: () => () => {} } as never,
    clock,
    coldStartsFromService: true,
  });
  const a = new Hono();
  dashboardRoutes(a, { feed, clock, token });
  return { a, clock };
}

async function signIn(a: Hono, origin: string): Promise<string> {
  const res = await a.request(`${origin}/_thaw/login`, {
    method: "POST",
    body: new URLSearchParams({ token: TOKEN }),
  });
  expect(res.status).toBe(303);
  return res.headers.get("set-cookie") ?? "";
}

describe("the dashboard's sign-in session (issue 26)", () => {
  it("the cookie is a signed session, not the token, named for the port, under /_thaw/", async () => {
    const { a } = app();
    const set = await signIn(a, "http://127.0.0.1:18091");
    expect(set).not.toContain(TOKEN);
    expect(set).not.toContain(encodeURIComponent(TOKEN));
    expect(set).toMatch(/^thaw_session_18091=v1\.\d+\.[A-Za-z0-9_-]{43}; /);
    expect(set).toMatch(/; Path=\/_thaw\/;/);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Strict/);
  });

  it("opens the page on its own port only; another port's server (same token) ignores it", async () => {
    const { a } = app();
    const cookie = (await signIn(a, "http://127.0.0.1:18091")).split(";")[0] as string;
    expect(
      (await a.request("http://127.0.0.1:18091/_thaw/api/revisions", { headers: { cookie } })).status,
    ).toBe(200);
    expect(
      (await a.request("http://127.0.0.1:18097/_thaw/api/revisions", { headers: { cookie } })).status,
    ).toBe(401);
  });

  it("expires, and a session of another token or a tampered one is refused", async () => {
    const { a, clock } = app();
    const cookie = (await signIn(a, "http://127.0.0.1:18091")).split(";")[0] as string;
    const url = "http://127.0.0.1:18091/_thaw/api/revisions";
    const [name, value] = cookie.split("=") as [string, string];
    const tampered = `${name}=${value.replace(/\.(\d+)\./, (_m, t) => `.${Number(t) + 1000}.`)}`;
    expect((await a.request(url, { headers: { cookie: tampered } })).status).toBe(401);
    const other = app("another-token-0123456789").a;
    expect((await other.request(url, { headers: { cookie } })).status).toBe(401);
    // The token itself in the cookie is no sign-in either.
    expect((await a.request(url, { headers: { cookie: `${name}=${TOKEN}` } })).status).toBe(401);
    expect((await a.request(url, { headers: { cookie: `thaw_token=${TOKEN}` } })).status).toBe(401);
    await clock.advance(24 * 60 * 60 * 1000 + 1);
    expect((await a.request(url, { headers: { cookie } })).status).toBe(401);
  });

  it("reads at most 4 KiB of the sign-in form: 413 and Connection: close past it", async () => {
    const { a } = app();
    const big = new URLSearchParams({ token: "x".repeat(5000) });
    const res = await a.request("http://127.0.0.1:18091/_thaw/login", { method: "POST", body: big });
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("ERR_BODY_TOO_LARGE");
  });
});
