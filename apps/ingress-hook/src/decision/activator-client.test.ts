import { ManualClock } from "@thaw/clock/testing";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { httpActivatorClient } from "./activator-client.js";

function activator(handler: (c: { body: unknown; auth: string | undefined }) => Response) {
  const app = new Hono();
  app.post("/v1/activate", async (c) =>
    handler({ body: await c.req.json(), auth: c.req.header("authorization") }),
  );
  return app;
}

describe("httpActivatorClient", () => {
  it("posts the contract's body with the bearer token and reads the endpoints", async () => {
    let seen: { body: unknown; auth: string | undefined } | undefined;
    const app = activator((c) => {
      seen = c;
      return Response.json({
        namespace: "ns",
        name: "r",
        endpoints: ["1.2.3.4:8012"],
        coldStart: true,
        waitedMs: 3,
      });
    });
    const client = httpActivatorClient({
      baseUrl: "http://act.test",
      fetch: async (r) => app.fetch(r),
      clock: new ManualClock(0),
      token: "tkn",
    });
    const out = await client.activate({ namespace: "ns", name: "r", timeoutMs: 500 });
    expect(out).toEqual({ kind: "ready", endpoints: ["1.2.3.4:8012"], coldStart: true });
    expect(seen).toEqual({ body: { namespace: "ns", name: "r", timeoutMs: 500 }, auth: "Bearer tkn" });
  });

  const answers: { name: string; res: () => Response; kind: string }[] = [
    {
      name: "200 without endpoints is a broken activator",
      res: () => Response.json({}),
      kind: "unavailable",
    },
    { name: "non-JSON 502", res: () => new Response("bad gateway", { status: 502 }), kind: "unavailable" },
    {
      name: "504 with a non-numeric Retry-After keeps the default",
      res: () =>
        Response.json(
          { error: { code: "ERR_ACTIVATION_TIMEOUT", message: "slow" } },
          { status: 504, headers: { "retry-after": "soon" } },
        ),
      kind: "timeout",
    },
    {
      name: "400 (bad body) is a hook bug: unavailable, with the message",
      res: () =>
        Response.json(
          { error: { code: "ERR_BAD_REQUEST", message: "timeoutMs: must be > 0" } },
          { status: 400 },
        ),
      kind: "unavailable",
    },
  ];
  it.each([
    {
      name: "504 with the activator's diagnosis keeps it apart from the message",
      res: () =>
        Response.json(
          {
            error: {
              code: "ERR_ACTIVATION_TIMEOUT",
              message: "r not ready: no listener",
              detail: "no listener",
            },
          },
          { status: 504, headers: { "retry-after": "3" } },
        ),
      want: {
        kind: "timeout",
        retryAfterSeconds: 3,
        message: "r not ready: no listener",
        detail: "no listener",
      },
    },
    {
      name: "503 ERR_REVISION_FAILED is the failing revision's cause, with the next restart's Retry-After",
      res: () =>
        Response.json(
          {
            error: { code: "ERR_REVISION_FAILED", message: "r is failing: app exited", detail: "app exited" },
          },
          { status: 503, headers: { "retry-after": "4" } },
        ),
      want: { kind: "failed", retryAfterSeconds: 4, message: "app exited" },
    },
  ])("$name", async ({ res, want }) => {
    const app = activator(() => res());
    const client = httpActivatorClient({
      baseUrl: "http://act.test",
      fetch: async (r) => app.fetch(r),
      clock: new ManualClock(0),
    });
    expect(await client.activate({ namespace: "ns", name: "r", timeoutMs: 500 })).toEqual(want);
  });

  for (const row of answers) {
    it(row.name, async () => {
      const app = activator(() => row.res());
      const client = httpActivatorClient({
        baseUrl: "http://act.test",
        fetch: async (r) => app.fetch(r),
        clock: new ManualClock(0),
      });
      const out = await client.activate({ namespace: "ns", name: "r", timeoutMs: 500 });
      expect(out.kind).toBe(row.kind);
      if (out.kind === "timeout") expect(out.retryAfterSeconds).toBeUndefined();
    });
  }
});
