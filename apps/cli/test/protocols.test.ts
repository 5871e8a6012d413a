import {
  exerciseProtocols,
  grpcClient,
  h2Session,
  httpEcho,
  PROTOCOL_APP,
  PROTOCOLS,
  type SseEvent,
  sseRead,
  wsOpen,
} from "@thaw/bench-kit/protocols";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stack } from "../src/stack.js";
import { stackFrom } from "./support/stack-harness.js";

// Every protocol through `thaw up`'s gateway (HTTP/1 and h2c prior knowledge on its one port), cold and
// warm: HTTP/1 echo, SSE, websocket, h2c, gRPC unary, server-streaming and bidi (a real @grpc/grpc-js
// client and server). The pods are real processes: @thaw/bench-kit's protocol app behind a real
// thaw-queue-proxy. Cold: all eight are sent at once while no pod runs, so each is held through the cold start.
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
      // gRPC needs HTTP/2 to the app: its port is named h2c, as in Knative.
      "    containerPortName: h2c",
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
  it("an HTTP/2 request for a host in no service gets the hook's 404 and wakes nothing", async () => {
    const pods = stack.scaler.pids().length;
    const s = h2Session({ origin: stack.url, host: "nowhere.example" });
    try {
      const r = await s.echo("x");
      expect(r.status).toBe(404);
      expect(JSON.parse(r.body)).toMatchObject({ error: { code: expect.any(String) } });
    } finally {
      s.close();
    }
    expect(stack.scaler.pids().length).toBe(pods);
  });
});

describe("thaw up gateway: streams open on pod 1 survive a scale-up to 2-3 pods", () => {
  let stack: Stack;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ stack, dispose } = await stackFrom([
      "autoscaler: { stable-window: 6s, scale-to-zero-grace-period: 30s }",
      "services:",
      "  - name: grow",
      "    hosts: [grow.localhost]",
      // gRPC needs HTTP/2 to the app: its port is named h2c, as in Knative.
      "    containerPortName: h2c",
      "    timeoutSeconds: 60",
      // No per-pod limit: the open streams take no slot the burst needs; 2 concurrent per pod is the target.
      "    containerConcurrency: 0",
      "    autoscaling: { target: 2, max-scale: 3 }",
      "    readinessProbe: { httpGet: { path: /healthz } }",
      "    run:",
      `      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(PROTOCOL_APP)}]`,
      '      env: { STARTUP_DELAY_MS: "300" }',
    ]));
  }, 30_000);
  afterAll(() => dispose?.(), 30_000);

  it("an SSE stream, a websocket, a gRPC server stream and a gRPC bidi call keep flowing, no break or duplicate; new requests spread", async () => {
    const target = { origin: stack.url, host: "grow.localhost", timeoutMs: 60_000 };
    const ready = () => stack.service.revisions().find((r) => r.name === "grow")?.readyPods ?? 0;
    // Pod 1, warm.
    const first = await httpEcho({ ...target, body: "wake" });
    expect(first.status).toBe(200);
    // The status follows the scaler's events: give it a moment (bounded) to count the pod.
    for (let i = 0; i < 100 && ready() < 1; i++) await new Promise((r) => setTimeout(r, 50));
    expect(ready()).toBe(1);
    const pod1 = first.pid;

    // The streams, opened on pod 1 and each long enough to outlast the scale-up (bounded: 200 x 50 ms).
    const N = 200;
    const sseSeen: SseEvent[] = [];
    const sse = sseRead({ ...target, n: N, gapMs: 50, onEvent: (e) => sseSeen.push(e) });
    const grpc = grpcClient(target);
    const streamed = grpc.serverStream(N, 50, "grow");
    const bidi = grpc.bidi();
    const ws = await wsOpen(target);
    expect(ws.pid).toBe(pod1);
    let talking = true;
    const wsEchoes: string[] = [];
    const bidiEchoes: { pid: string; text: string }[] = [];
    const talk = (async () => {
      for (let i = 0; talking && i < 1000; i++) {
        wsEchoes.push(await ws.send(`ws ${i}`));
        bidiEchoes.push(await bidi.send(`bidi ${i}`));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    // A burst of short SSE requests (1 s each) until the autoscaler has 2-3 pods ready (bounded: 40 s).
    const burstPids = new Set<string>();
    const t0 = Date.now();
    while (ready() < 2 && Date.now() - t0 < 40_000) {
      const round = await Promise.all(
        Array.from({ length: 16 }, () => sseRead({ ...target, n: 10, gapMs: 100 })),
      );
      for (const r of round) {
        expect(r.status).toBe(200);
        for (const e of r.events) burstPids.add(e.data.pid);
      }
    }
    const scaledInMs = Date.now() - t0;
    expect(ready(), "ready pods after the burst").toBeGreaterThanOrEqual(2);
    // New requests spread over the new pods.
    // (Rounds until a second pod answers, 5 at most: on a loaded machine the new pod's first probe may
    // land after the first round was already placed.)
    for (let round = 0; round < 5 && burstPids.size < 2; round++) {
      const after = await Promise.all(
        Array.from({ length: 24 }, () => sseRead({ ...target, n: 5, gapMs: 100 })),
      );
      for (const r of after) for (const e of r.events) burstPids.add(e.data.pid);
    }
    expect(burstPids.size, "pods that answered the burst and the requests after it").toBeGreaterThanOrEqual(
      2,
    );

    // The streams: every event and message once, in order, all from pod 1.
    const sseDone = await sse;
    expect(sseDone.status).toBe(200);
    expect(sseDone.events.map((e) => e.data.i)).toEqual(Array.from({ length: N }, (_, i) => i));
    expect(new Set(sseDone.events.map((e) => e.data.pid))).toEqual(new Set([pod1]));
    const messages = await streamed;
    expect(messages.map((m) => m.i)).toEqual(Array.from({ length: N }, (_, i) => i));
    expect(new Set(messages.map((m) => m.pid)).size).toBe(1);
    talking = false;
    await talk;
    expect(wsEchoes.length).toBeGreaterThan(10);
    expect(wsEchoes).toEqual(wsEchoes.map((_, i) => `ws ${i}`));
    expect(bidiEchoes.map((m) => m.text)).toEqual(bidiEchoes.map((_, i) => `bidi ${i}`));
    expect(new Set(bidiEchoes.map((m) => m.pid)).size).toBe(1);
    expect(await bidi.end()).toBe(0);
    console.log(
      `scale-up under open streams: ${ready()} pods ready ${scaledInMs} ms after the burst began; ` +
        `${burstPids.size} pods answered new requests; SSE ${sseDone.events.length}/${N} events, gRPC stream ` +
        `${messages.length}/${N} messages, websocket ${wsEchoes.length} and bidi ${bidiEchoes.length} echoes, all on pod 1`,
    );
    ws.close();
    grpc.close();
  }, 120_000);
});
