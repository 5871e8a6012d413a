import { exerciseProtocols, PROTOCOL_APP, PROTOCOLS } from "@thaw/bench-kit/protocols";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stack } from "../src/stack.js";
import { stackFrom } from "./support/stack-harness.js";

// Every protocol through `thaw up`'s gateway (HTTP/1 and h2c prior knowledge on its one port), cold and
// warm: HTTP/1 echo, SSE, websocket, h2c, gRPC unary, server-streaming and bidi (a real @grpc/grpc-js
// client and server). The pods are real processes: @thaw/bench-kit's protocol app behind a real
// thaw-queue-proxy. Cold: all seven are sent at once while no pod runs, so each is held through the cold start.
const ALL_OK = Object.fromEntries(PROTOCOLS.map((p) => [p, "ok"]));

describe("thaw up gateway: every protocol, cold and warm (real stack, real pods)", () => {
  let stack: Stack;
  let dispose: () => Promise<void>;
  let target: { origin: string; host: string };
  beforeAll(async () => {
    ({ stack, dispose } = await stackFrom([
      "autoscaler: { stable-window: 6s, scale-to-zero-grace-period: 30s }",
      "services:",
      "  - name: proto",
      "    hosts: [proto.localhost]",
      "    timeoutSeconds: 30",
      "    readinessProbe: { httpGet: { path: /healthz } }",
      "    run:",
      `      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(PROTOCOL_APP)}]`,
      '      env: { STARTUP_DELAY_MS: "300" }',
    ]));
    target = { origin: stack.url, host: "proto.localhost" };
  }, 30_000);
  afterAll(() => dispose?.(), 30_000);

  it("cold: each protocol's first request wakes the service and round-trips in order", async () => {
    expect(stack.scaler.pids()).toEqual([]);
    const got = await exerciseProtocols(target);
    expect(Object.fromEntries(Object.entries(got).map(([k, v]) => [k, v.result]))).toEqual(ALL_OK);
    expect(stack.scaler.pids().length).toBeGreaterThan(0);
  }, 60_000);

  it("warm: the same again on the running pod", async () => {
    const got = await exerciseProtocols(target);
    expect(Object.fromEntries(Object.entries(got).map(([k, v]) => [k, v.result]))).toEqual(ALL_OK);
  }, 60_000);
});
