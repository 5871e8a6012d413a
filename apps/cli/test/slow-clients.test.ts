import { slowClientScenario } from "@thaw/bench-kit/slow-clients";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stack } from "../src/stack.js";
import { echoConfig, request, stackFrom, untilAnswered } from "./support/stack-harness.js";

// `thaw up`'s gateway with `headersTimeout: 3000ms` (its pod a real app + queue-proxy): slowloris heads get
// 408 and are closed at the limit, silent connections are closed at it, idle keep-alives after 3 s (the
// smaller of the limit and 5 s), while a normal client is proxied to the pod meanwhile.
const HEADERS_MS = 3000;
const host = { host: "echo.localhost" };
let stack: Stack;
let dispose: () => Promise<void>;

beforeAll(async () => {
  ({ stack, dispose } = await stackFrom(
    echoConfig([`headersTimeout: ${HEADERS_MS}ms`], ["    autoscaling: { min-scale: 1, max-scale: 1 }"]),
  ));
  await untilAnswered(stack.url, host, "the pod to answer");
}, 60_000);
afterAll(async () => {
  await dispose?.();
}, 60_000);

describe("thaw up gateway: slow and idle clients", () => {
  it("closes slowloris, silent and idle sockets at the head timeout and serves others meanwhile", async () => {
    const port = Number(new URL(stack.url).port);
    const r = await slowClientScenario(port, {
      label: "gateway",
      headersMs: HEADERS_MS,
      host: "echo.localhost",
      normal: async (i) => {
        expect((await request(stack.url, { path: `/normal${i}`, headers: host })).status).toBe(200);
      },
    });
    expect(r.problems).toEqual([]);
  }, 60_000);
});
