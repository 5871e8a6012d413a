import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { fieldListReader, withCarrier } from "../tracing.js";
import { startTracing } from "./start-tracing.js";

const PARENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN = "00f067aa0ba902b7";

async function tracing() {
  const exporter = new InMemorySpanExporter();
  const t = await startTracing(
    { exporter: "otlp", url: "http://127.0.0.1:1/v1/traces", serviceName: "svc", sampleRatio: 1 },
    { exporter },
  );
  return { ...t, exporter };
}

describe("otelTracer", () => {
  it("continues an incoming traceparent, even one marked not sampled, and makes children of it", async () => {
    const t = await tracing();
    const headers = new Headers({ traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-00`, tracestate: "a=1" });
    const span = t.tracer.startSpan("hop", (n) => headers.get(n), "server", { "thaw.revision": "default/x" });
    const child = span.child("thaw.queue");
    const carrier = child.carrier();
    child.end();
    span.end("boom");
    await t.flush();
    const [q, hop] = t.exporter.getFinishedSpans();
    expect(hop?.spanContext().traceId).toBe(PARENT_TRACE);
    expect(hop?.parentSpanContext?.spanId).toBe(PARENT_SPAN);
    expect(hop?.attributes["thaw.revision"]).toBe("default/x");
    expect(hop?.status.code).toBe(2);
    expect(q?.parentSpanContext?.spanId).toBe(hop?.spanContext().spanId);
    // Recorded whatever the client's sampled flag said, and the next hop continues under the child.
    expect(carrier.traceparent).toBe(`00-${PARENT_TRACE}-${q?.spanContext().spanId}-01`);
    expect(carrier.tracestate).toBe("a=1");
    expect(hop?.resource.attributes["service.name"]).toBe("svc");
    await t.shutdown();
  });

  it.each([
    ["no traceparent", {}],
    ["a malformed traceparent", { traceparent: "00-zz-zz-01" }],
    ["an all-zero trace id", { traceparent: `00-${"0".repeat(32)}-${PARENT_SPAN}-01` }],
  ])("%s starts a new trace", async (_name, h) => {
    const t = await tracing();
    const headers = new Headers(h);
    t.tracer.startSpan("hop", (n) => headers.get(n)).end();
    const [span] = t.exporter.getFinishedSpans();
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span?.spanContext().traceId).not.toBe("0".repeat(32));
    await t.shutdown();
  });
});

describe("field lists", () => {
  it("reads names in any case and replaces the trace-context fields", () => {
    const fields = ["Host", "x", "TraceParent", "old", "tracestate", "s=1", "accept", "*/*"];
    expect(fieldListReader(fields)("traceparent")).toBe("old");
    expect(withCarrier(fields, { traceparent: "new" })).toEqual([
      "Host",
      "x",
      "accept",
      "*/*",
      "traceparent",
      "new",
    ]);
  });
});
