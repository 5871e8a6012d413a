// The benchmark's baseline: a Hono Worker that only proxies to ORIGIN_URL, the way the gateway's forward
// does (X-Forwarded-Host and -Proto set, Host from the URL, redirects passed on, the client's abort
// passed on), with no hook in front.
import { Hono } from "hono";

const app = new Hono<{ Bindings: { ORIGIN_URL: string } }>();
app.all("*", (c) => {
  const req = c.req.raw;
  const u = new URL(req.url);
  const headers = new Headers(req.headers);
  headers.set("x-forwarded-host", req.headers.get("host") ?? u.host);
  headers.set("x-forwarded-proto", u.protocol.replace(":", ""));
  return fetch(
    new Request(new URL(u.pathname + u.search, c.env.ORIGIN_URL), {
      method: req.method,
      headers,
      body: req.body,
      redirect: "manual",
      signal: req.signal,
    }),
  );
});

export default app;
