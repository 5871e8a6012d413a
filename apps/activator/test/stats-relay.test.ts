import { ManualClock } from "@thaw/clock/testing";
import { emptyStat, encodeWireStatMessages, type WireStatMessage } from "@thaw/protocol";
import { describe, expect, it } from "vitest";
import { createActivatorApp } from "../src/app.js";
import type { ActivatorDeps } from "../src/ports.js";
import { FakeCoordinator, mapDirectory, RecordingReporter } from "./fakes.js";

// POST /v1/stats (CONTRACTS.md): a hook's held requests, passed on with the activator's own stats.
const TOKEN = "stats-relay-token";

function setup(relay: boolean) {
  const clock = new ManualClock(1_000_000);
  const relayed: WireStatMessage[][] = [];
  const deps: ActivatorDeps = {
    revisions: mapDirectory({}),
    coordinator: new FakeCoordinator(clock),
    forward: async () => ({ status: 200, headers: new Headers(), body: null }),
    clock,
    reporter: new RecordingReporter(),
    token: TOKEN,
    ...(relay
      ? {
          relayStats: (m: WireStatMessage[]) => {
            relayed.push(m);
          },
        }
      : {}),
  };
  return { app: createActivatorApp(deps).app, relayed };
}

const held = (name: string, concurrency: number): WireStatMessage => ({
  namespace: "default",
  name,
  stat: { ...emptyStat("hook-0"), averageConcurrentRequests: concurrency, requestCount: concurrency },
});

function post(body: Uint8Array, headers: Record<string, string> = {}): Request {
  return new Request("http://activator/v1/stats", {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/protobuf", ...headers },
    body,
  });
}

describe("POST /v1/stats", () => {
  it("passes a hook's stats on as they came, without the messages that name no revision or carry no stat", async () => {
    const { app, relayed } = setup(true);
    const bytes = encodeWireStatMessages([
      held("hello", 9),
      { namespace: "default", name: "", stat: emptyStat("hook-0") },
      { namespace: "default", name: "bare" },
    ]);
    const res = await app.fetch(post(bytes));
    expect(res.status).toBe(204);
    expect(relayed).toHaveLength(1);
    expect(relayed[0]).toHaveLength(1);
    expect(relayed[0]?.[0]).toMatchObject({
      namespace: "default",
      name: "hello",
      stat: { podName: "hook-0", averageConcurrentRequests: 9 },
    });
  });

  it.each<{ name: string; headers: Record<string, string>; status: number; code: string }>([
    { name: "no token", headers: { authorization: "" }, status: 401, code: "ERR_UNAUTHORIZED" },
    {
      name: "JSON instead of protobuf",
      headers: { "content-type": "application/json" },
      status: 400,
      code: "ERR_BAD_REQUEST",
    },
  ])("refuses $name ($status)", async ({ headers, status, code }) => {
    const { app, relayed } = setup(true);
    const res = await app.fetch(post(encodeWireStatMessages([held("hello", 1)]), headers));
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
    expect(relayed).toEqual([]);
  });

  it("refuses a body that does not decode, naming the body", async () => {
    const { app } = setup(true);
    const res = await app.fetch(post(new Uint8Array([0x0a, 0xff, 0xff, 0xff])));
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/body/);
  });

  it("refuses more than 1 MiB with 413 before decoding it", async () => {
    const { app, relayed } = setup(true);
    const res = await app.fetch(post(new Uint8Array(1024 * 1024 + 1)));
    expect(res.status).toBe(413);
    expect(relayed).toEqual([]);
  });

  it("answers 404 where nothing passes stats on, so the hook stops sending", async () => {
    const { app } = setup(false);
    const res = await app.fetch(post(encodeWireStatMessages([held("hello", 1)])));
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/passes no stats on/);
  });
});
