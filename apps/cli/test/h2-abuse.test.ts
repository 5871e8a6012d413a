import { COUNT_APP, idleSessionScenario, rapidResetScenario } from "@thaw/bench-kit/h2-abuse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stack } from "../src/stack.js";
import { appService, request, stackFrom, untilAnswered } from "./support/stack-harness.js";

// `thaw up`'s gateway with `headersTimeout: 3000ms` (so its h2c idle limit, 5 s by default, is 3 s), its pod
// a real queue-proxy in front of an app that counts what reaches it. Rapid reset (CVE-2023-44487): streams
// the client reset with their HEADERS never reach the app, and a reset flood gets GOAWAY ENHANCE_YOUR_CALM
// while another client is served. An h2c session without streams is closed at the idle limit.
const IDLE_MS = 3000;
const host = { host: "count.localhost" };
let stack: Stack;
let dispose: () => Promise<void>;
let port = 0;

beforeAll(async () => {
  ({ stack, dispose } = await stackFrom([
    `headersTimeout: ${IDLE_MS}ms`,
    "services:",
    ...appService("count", COUNT_APP, ["    autoscaling: { min-scale: 1, max-scale: 1 }"]),
  ]));
  port = Number(new URL(stack.url).port);
  await untilAnswered(stack.url, host, "the pod to answer");
}, 60_000);
afterAll(async () => {
  await dispose?.();
}, 60_000);

/** The app's count of /rr/ requests, asked through the gateway. */
async function reached(): Promise<number> {
  const r = await request(stack.url, { path: "/count", headers: host });
  return (JSON.parse(r.body) as { rr: number }).rr;
}

describe("thaw up gateway: HTTP/2 rapid reset and idle sessions", () => {
  it("forwards no reset stream and answers a reset flood with GOAWAY ENHANCE_YOUR_CALM", async () => {
    const r = await rapidResetScenario(port, { label: "gateway", authority: "count.localhost", reached });
    expect(r.problems).toEqual([]);
  }, 90_000);

  it("closes preface-only and idle sessions at the idle limit", async () => {
    const r = await idleSessionScenario(port, {
      label: "gateway",
      limitMs: IDLE_MS,
      authority: "count.localhost",
    });
    expect(r.problems).toEqual([]);
  }, 60_000);
});
