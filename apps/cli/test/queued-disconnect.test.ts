/**
 * A client that disconnects while its request waits in the activator's throttler (`thaw up`'s stack in this
 * process; the pod a real app + queue-proxy): its place is freed, the app never sees it, and the gateway's
 * in-flight count goes back to 0.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stack } from "../src/stack.js";
import { echoConfig, request, stackFrom, untilAnswered } from "./support/stack-harness.js";
import { until } from "./support/up-process.js";

const host = { host: "echo.localhost" };
let stack: Stack;
let dispose: () => Promise<void>;
const dir = mkdtempSync(join(tmpdir(), "thaw-queued-"));
const arrivedFile = join(dir, "arrived.log");
const arrived = () => (existsSync(arrivedFile) ? readFileSync(arrivedFile, "utf8") : "");

beforeAll(async () => {
  ({ stack, dispose } = await stackFrom(
    echoConfig([], ["    containerConcurrency: 1", "    autoscaling: { min-scale: 1, max-scale: 1 }"]),
  ));
  await untilAnswered(stack.url, host, "the pod to answer");
}, 60_000);

afterAll(async () => {
  await dispose?.();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** Opens a connection to the gateway and sends one request head; the socket is returned unread. */
async function rawRequest(port: number, path: string): Promise<net.Socket> {
  const s = net.connect(port, "127.0.0.1");
  await new Promise<void>((r) => s.once("connect", () => r()));
  s.on("error", () => {});
  s.write(`GET ${path} HTTP/1.1\r\nHost: echo.localhost\r\n\r\n`);
  return s;
}

describe("thaw up: clients that disconnect while queued in the activator's throttler", () => {
  it("free their places: the next request is served after the busy one, the app never sees theirs", async () => {
    // One pod at containerConcurrency 1 has no burst capacity to spare: the activator is in the path.
    await until(
      () => stack.service.status({ namespace: "default", name: "echo" })?.mode === "proxy",
      10_000,
      "proxy mode",
    );
    const port = Number(new URL(stack.url).port);
    const mark = `arrived=${encodeURIComponent(arrivedFile)}`;
    const busy = request(stack.url, { path: `/busy?sleep=1500&${mark}`, headers: host });
    await until(() => arrived().includes("/busy"), 10_000, "the busy request at the app");
    // Each of these would hold the only slot for 20 s.
    const gone = await Promise.all(
      Array.from({ length: 20 }, (_, i) => rawRequest(port, `/gone${i}?sleep=20000&${mark}`)),
    );
    await until(() => stack.inflight === 21, 10_000, "21 requests in flight at the gateway");
    for (const s of gone) s.destroy();
    await until(() => stack.inflight === 1, 10_000, "the gone ones to be counted out");
    const t0 = performance.now();
    const next = await request(stack.url, { path: `/next?${mark}`, headers: host });
    const waitedMs = performance.now() - t0;
    expect((await busy).status).toBe(200);
    expect(next.status).toBe(200);
    // The busy one had up to 1.5 s left; one gone request let through would have added 20 s.
    expect(waitedMs).toBeLessThan(15_000);
    expect(
      arrived()
        .split("\n")
        .filter((l) => l.includes("/gone")),
    ).toEqual([]);
    await until(() => stack.inflight === 0, 10_000, "nothing in flight");
    process.stderr.write(
      `throttler disconnect: next request served ${Math.round(waitedMs)} ms after 20 left\n`,
    );
  }, 60_000);
});
