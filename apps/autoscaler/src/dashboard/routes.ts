import type { Clock } from "@thaw/clock";
import { BODY_LIMITS, bodyErrorResponse, readBoundedText, tokenAllows } from "@thaw/protocol";
import type { Hono } from "hono";
import { dashboardAsset } from "./assets.js";
import type { DashboardFeed } from "./feed.js";
import { dashboardPage } from "./page.js";
import { pageAuthorized, sessionCookie, signInPage, unauthorizedJson } from "./session.js";
import { dashboardStream } from "./stream.js";

/** What {@link dashboardRoutes} serves from. */
export interface DashboardRoutesOptions {
  /** The page's data, and contract 4's status list for `GET /_thaw/api/revisions` (its `revisions()`). */
  feed: DashboardFeed;
  clock: Clock;
  /** thaw.config.yaml `token`: set, every route but the sign-in needs it (bearer header or sign-in cookie). */
  token?: string;
}

/**
 * The dashboard on any Hono app (thaw up's gateway, thaw-autoscaler): `GET /_thaw/` (the page, or the
 * sign-in form), `POST /_thaw/login` (token → HttpOnly cookie), `GET /_thaw/api/revisions`,
 * `GET /_thaw/api/stream` (SSE) and
 * `GET /_thaw/assets/*` (uPlot, served by us).
 */
// biome-ignore lint/suspicious/noExplicitAny: mounts on apps with any Variables (the gateway's are the hook's).
export function dashboardRoutes(app: Hono<any>, o: DashboardRoutesOptions): void {
  const { token } = o;
  const ok = (req: Request) => pageAuthorized(req, token, o.clock.now());
  app.get("/_thaw", (c) => c.redirect("/_thaw/"));
  app.get("/_thaw/", async (c) => ((await ok(c.req.raw)) ? c.html(dashboardPage()) : signInPage(false)));
  app.post("/_thaw/login", async (c) => {
    if (!token) return c.redirect("/_thaw/", 303);
    let given: string | null;
    try {
      // Unauthenticated: a few KiB at most, read as it streams (413 and the connection closed past it).
      given = new URLSearchParams(await readBoundedText(c.req.raw, BODY_LIMITS.login)).get("token");
    } catch (err) {
      const tooLarge = bodyErrorResponse(err);
      if (tooLarge) return tooLarge;
      throw err;
    }
    if (given === null || !tokenAllows(token, given)) return signInPage(true);
    return new Response(null, {
      status: 303,
      headers: { location: "/_thaw/", "set-cookie": await sessionCookie(c.req.raw, token, o.clock.now()) },
    });
  });
  app.get("/_thaw/api/revisions", async (c) =>
    (await ok(c.req.raw)) ? c.json(o.feed.revisions()) : unauthorizedJson(),
  );
  app.get("/_thaw/api/stream", async (c) =>
    (await ok(c.req.raw)) ? dashboardStream(o.feed, o.clock, c.req.raw.signal) : unauthorizedJson(),
  );
  app.get("/_thaw/assets/:name", async (c) => {
    // The assets are public code (uPlot); they still need the token so an unsigned visitor learns nothing.
    if (!(await ok(c.req.raw))) return unauthorizedJson();
    const asset = dashboardAsset(c.req.param("name"));
    if (!asset) return c.notFound();
    return c.body(asset.body, 200, { "content-type": asset.type, "cache-control": "max-age=3600" });
  });
}
