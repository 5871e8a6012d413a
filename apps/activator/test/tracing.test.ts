import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { idOf, oneSpan as one, parentOf } from "@thaw/bench-kit/spans";
import { startTracing } from "@thaw/protocol/otel";
import { afterEach, describe, expect, it } from "vitest";
import { defaultRevisionConfig } from "../src/node/config.js";
import { type ActivatorOverrides, startActivator } from "../src/node/server.js";
import { StaticEndpointSource } from "../src/static-sources.js";
import { testActivatorConfig } from "./activator-config.js";
import { type Backend, startBackend } from "./backends.js";

// The Node activator alone with real loopback backends (stand-ins for a pod's queue-proxy): the spans of a
// request it finds cold itself, of a warm one with tracing on (the portable path, not the fast path), and
// what reaches the pod with tracing off.
const KEY = { namespace: "default", name: "traced-00001" };
const REV = { "knative-serving-namespace": KEY.namespace, "knative-serving-revision": KEY.name };
const TRACE = "3e1a8ff0b6b0c04a1d2e0b51d7b52a6f";
const CLIENT_SPAN = "a2fb4a1d1a96d312";
const CLIENT_PARENT = `00-${TRACE}-${CLIENT_SPAN}-01`;

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function start(o: ActivatorOverrides, endpoints: string[] = []) {
  const a = await startActivator(testActivatorConfig([{ ...KEY, ...defaultRevisionConfig, endpoints }]), o);
  cleanup.push(() => a.close());
  return a;
}

async function backend(): Promise<Backend> {
  const b = await startBackend();
  cleanup.push(() => b.close());
  return b;
}

async function tracer() {
  const exporter = new InMemorySpanExporter();
  const t = await startTracing(
    { exporter: "otlp", url: "", serviceName: "thaw-activator", sampleRatio: 1 },
    { exporter },
  );
  cleanup.push(() => t.shutdown());
  return { tracer: t.tracer, exporter };
}

describe("activator spans", () => {
  it("a request found cold: queue holds the cold start's scale and probe phases, the forward's context reaches the pod", async () => {
    const { tracer: t, exporter } = await tracer();
    const endpoints = new StaticEndpointSource();
    let pod: Backend | undefined;
    const a = await start({
      tracer: t,
      endpoints,
      scaler: {
        poke() {
          setTimeout(async () => {
            pod = await backend();
            endpoints.set(KEY, [pod.addr]);
          }, 200);
        },
      },
    });
    const res = await fetch(`http://127.0.0.1:${a.port}/cold`, {
      headers: { ...REV, traceparent: CLIENT_PARENT },
    });
    expect(res.status).toBe(200);
    await res.text();
    const all = exporter.getFinishedSpans();
    const request = one(all, "activator.request");
    expect(request.spanContext().traceId).toBe(TRACE);
    expect(parentOf(request)).toBe(CLIENT_SPAN);
    expect(request.attributes["thaw.cold"]).toBe(true);
    expect(request.attributes["http.response.status_code"]).toBe(200);
    const queue = one(all, "thaw.queue");
    expect(parentOf(queue)).toBe(idOf(request));
    const activation = one(all, "thaw.activation");
    expect(parentOf(activation)).toBe(idOf(queue));
    expect(parentOf(one(all, "thaw.scale"))).toBe(idOf(activation));
    expect(parentOf(one(all, "thaw.probe"))).toBe(idOf(activation));
    expect(activation.attributes["thaw.cold_start.scale_ms"]).toBeGreaterThan(0);
    const forward = one(all, "thaw.forward");
    expect(parentOf(forward)).toBe(idOf(request));
    expect(forward.attributes["server.address"]).toBe(pod?.addr);
    expect(pod?.seen[0]?.headers.traceparent).toBe(`00-${TRACE}-${idOf(forward)}-01`);
  });

  it("a warm request with tracing on is traced too (it takes the portable path)", async () => {
    const { tracer: t, exporter } = await tracer();
    const pod = await backend();
    const a = await start({ tracer: t }, [pod.addr]);
    // The first request may find the pod not yet probed; the second is warm.
    for (const path of ["/first", "/warm"]) {
      const res = await fetch(`http://127.0.0.1:${a.port}${path}`, { headers: REV });
      expect(res.status).toBe(200);
      await res.text();
    }
    const requests = exporter.getFinishedSpans().filter((s) => s.name === "activator.request");
    expect(requests).toHaveLength(2);
    const warm = pod.seen.find((s) => s.url === "/warm");
    expect(warm?.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });

  it("tracing off: nothing added, and a client's traceparent passes through unchanged", async () => {
    const pod = await backend();
    const a = await start({}, [pod.addr]);
    for (const [path, extra] of [
      ["/plain", {}],
      ["/client", { traceparent: CLIENT_PARENT }],
    ] as const) {
      const res = await fetch(`http://127.0.0.1:${a.port}${path}`, { headers: { ...REV, ...extra } });
      expect(res.status).toBe(200);
      await res.text();
    }
    expect(pod.seen.find((s) => s.url === "/plain")?.headers.traceparent).toBeUndefined();
    expect(pod.seen.find((s) => s.url === "/client")?.headers.traceparent).toBe(CLIENT_PARENT);
  });
});
