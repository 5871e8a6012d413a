import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { type OtlpReceiver, startOtlpReceiver } from "@thaw/bench-kit/otlp";
import { eventually, idOf, oneSpan, parentOf } from "@thaw/bench-kit/spans";
import { type RunningTracing, startTracing } from "@thaw/protocol/otel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { podTracingEnv } from "../src/up.js";
import { echoConfig, request, stackFrom } from "./support/stack-harness.js";

// `thaw up` with tracing on: the gateway's hook and activator export to an in-memory exporter here, the
// pods' real thaw-queue-proxy processes (environment from podTracingEnv, as `thaw up --tracing` builds it)
// export over OTLP/HTTP to a loopback receiver. A cold request must make one trace through all three.
const TRACE = "5b8efff798038103d269b633813fc60c";
const CLIENT_SPAN = "eee19b7ec3c1b174";

let receiver: OtlpReceiver;
let tracing: RunningTracing;
const spans = new InMemorySpanExporter();
let stack: Awaited<ReturnType<typeof stackFrom>>;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  tracing = await startTracing(
    { exporter: "otlp", url: "", serviceName: "thaw-up", sampleRatio: 1 },
    { exporter: spans },
  );
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OTEL_")));
  stack = await stackFrom(echoConfig(), {
    tracer: tracing.tracer,
    baseEnv: {
      ...podTracingEnv(env),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: "50",
    },
  });
}, 60_000);

afterAll(async () => {
  await stack?.dispose();
  await tracing?.shutdown();
  await receiver?.close();
}, 60_000);

/** The one span named `name` in the client's trace. */
const one = (all: ReadableSpan[], name: string) => oneSpan(all, name, TRACE);

describe("thaw up with tracing on", () => {
  it("a cold request through the gateway is one trace: hook, activator, the pod's queue-proxy, the app", async () => {
    const res = await request(stack.stack.url, {
      headers: { host: "echo.localhost", traceparent: `00-${TRACE}-${CLIENT_SPAN}-01` },
    });
    expect(res.status, res.body).toBe(200);
    const got = JSON.parse(res.body) as { headers: Record<string, string> };
    const all = spans.getFinishedSpans();
    const decide = one(all, "hook.decide");
    expect(parentOf(decide)).toBe(CLIENT_SPAN);
    const call = one(all, "hook.activate");
    expect(parentOf(call)).toBe(idOf(decide));
    expect(parentOf(one(all, "activator.activate"))).toBe(idOf(call));
    // In the gateway the middleware hands the decision's context on: the activator continues under it.
    const proxied = one(all, "activator.request");
    expect(parentOf(proxied)).toBe(idOf(decide));
    const forward = one(all, "thaw.forward");
    expect(parentOf(forward)).toBe(idOf(proxied));
    const qp = await eventually("the queue-proxy's span over OTLP", () =>
      receiver.spans.find((s) => s.name === "queue-proxy.request" && s.traceId === TRACE),
    );
    expect(qp.service).toBe("thaw-queue-proxy");
    expect(qp.parentSpanId).toBe(idOf(forward));
    expect(got.headers.traceparent).toBe(`00-${TRACE}-${qp.spanId}-01`);
  }, 60_000);
});
