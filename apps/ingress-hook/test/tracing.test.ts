import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { LocalScaler } from "@thaw/autoscaler-service";
import { type OtlpReceiver, startOtlpReceiver } from "@thaw/bench-kit/otlp";
import { eventually, idOf, oneSpan, parentOf } from "@thaw/bench-kit/spans";
import { type RunningTracing, startTracing } from "@thaw/protocol/otel";
import { afterAll, describe, expect, it } from "vitest";
import { type ActivatorChain, startActivatorChain } from "./support/activator-chain.js";
import { httpGet } from "./support/http-get.js";
import { scalerEndpoints } from "./support/local-scaler-overrides.js";
import { requireNginx } from "./support/nginx-process.js";

// One cold request through real nginx (infra/nginx/nginx.conf, auth_request) -> the hook service -> the
// real activator (both in this process, each exporting to an in-memory span exporter) -> a pod started by
// `thaw up`'s local scaler: a real thaw-queue-proxy child process, which exports over OTLP/HTTP to a
// loopback receiver here, in front of an app that echoes the trace context it got. With tracing off the
// same chain adds no traceparent, and the queue-proxy process loads no @opentelemetry module (a resolve
// hook records every one it would).
const APP = fileURLToPath(new URL("./support/trace-echo-app.mjs", import.meta.url));
const RECORD_IMPORTS = fileURLToPath(new URL("./support/record-imports.mjs", import.meta.url));
const TOKEN = "activator-token-for-tracing";
const CLIENT_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CLIENT_SPAN = "b7ad6b7169203331";

interface Stack {
  chain: ActivatorChain;
  scaler: LocalScaler;
  hookSpans: InMemorySpanExporter;
  activatorSpans: InMemorySpanExporter;
  tracings: RunningTracing[];
  importLog: string;
}

const dir = mkdtempSync(join(tmpdir(), "thaw-tracing-"));
let receiver: OtlpReceiver | undefined;
const stacks: Stack[] = [];

async function startStack(tracing: boolean, name: string): Promise<Stack> {
  requireNginx();
  const hookSpans = new InMemorySpanExporter();
  const activatorSpans = new InMemorySpanExporter();
  const tracings: RunningTracing[] = [];
  const tracer = async (serviceName: string, exporter: InMemorySpanExporter) => {
    const t = await startTracing({ exporter: "otlp", url: "", serviceName, sampleRatio: 1 }, { exporter });
    tracings.push(t);
    return t.tracer;
  };
  const hookTracer = tracing ? await tracer("thaw-ingress-hook", hookSpans) : undefined;
  const activatorTracer = tracing ? await tracer("thaw-activator", activatorSpans) : undefined;
  const importLog = join(dir, `${name}.imports`);
  // The pods inherit this, not the test's own OTEL_* variables.
  const baseEnv: Record<string, string | undefined> = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("OTEL_")),
  );
  baseEnv.NODE_OPTIONS = `--import ${RECORD_IMPORTS}`;
  baseEnv.THAW_IMPORT_LOG = importLog;
  if (tracing) {
    receiver ??= await startOtlpReceiver();
    baseEnv.OTEL_TRACES_EXPORTER = "otlp";
    baseEnv.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    baseEnv.OTEL_BSP_SCHEDULE_DELAY = "50";
  }
  const scaler = new LocalScaler({ baseEnv });
  scaler.register({
    namespace: "default",
    name,
    command: [process.execPath, APP],
    env: {},
    portEnv: "PORT",
    containerConcurrency: 1,
    timeoutSeconds: 30,
    drainQuietPeriodMs: 200,
  });
  const chain = await startActivatorChain({
    token: TOKEN,
    revisions: [{ namespace: "default", name, endpoints: [], containerConcurrency: 1, timeoutSeconds: 30 }],
    services: [{ name, namespace: "default", hosts: [`${name}.localhost`] }],
    hook: { activationTimeoutMs: 30_000, ...(hookTracer ? { tracer: hookTracer } : {}) },
    overrides: {
      scaler: { poke: (key) => void scaler.scale(key, 1) },
      endpoints: scalerEndpoints(scaler),
      ...(activatorTracer ? { tracer: activatorTracer } : {}),
    },
  });
  const stack = { chain, scaler, hookSpans, activatorSpans, tracings, importLog };
  stacks.push(stack);
  return stack;
}

afterAll(async () => {
  for (const s of stacks) {
    await s.chain.close();
    await s.scaler.close();
    for (const t of s.tracings) await t.shutdown();
  }
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** The one span named `name` in the client's trace (nginx's own readiness check makes traces of its own). */
const one = (spans: ReadableSpan[], name: string) => oneSpan(spans, name, CLIENT_TRACE);

describe("OpenTelemetry traces across nginx -> hook -> activator -> queue-proxy -> app", () => {
  it("a cold request makes one trace: each hop a child of the context it received, the app gets it too", async () => {
    const { chain, hookSpans, activatorSpans, importLog } = await startStack(true, "traced");
    const res = await httpGet(chain.port, "traced.localhost", "/", {
      traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`,
      tracestate: "client=1",
    });
    expect(res.status, res.body).toBe(200);
    const atApp = JSON.parse(res.body) as { traceparent: string | null; tracestate: string | null };

    // The hook: its decision continues the client's trace (nginx passes the client's headers on the
    // auth subrequest), and the activation call it leads is a child of the decision.
    const hook = hookSpans.getFinishedSpans();
    const decide = one(hook, "hook.decide");
    expect(decide.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(parentOf(decide)).toBe(CLIENT_SPAN);
    expect(decide.attributes["thaw.decision"]).toBe("allow");
    expect(decide.attributes["thaw.revision"]).toBe("default/traced");
    const call = one(hook, "hook.activate");
    expect(parentOf(call)).toBe(idOf(decide));

    // The activator: /v1/activate continues the hook's call and records the cold start's phases; the
    // request nginx then proxies continues the client's context, queues, and is forwarded.
    const act = await eventually("the activator's request span", () => {
      const s = activatorSpans.getFinishedSpans();
      return s.some((x) => x.name === "activator.request") ? s : undefined;
    });
    const activate = one(act, "activator.activate");
    expect(parentOf(activate)).toBe(idOf(call));
    expect(activate.attributes["thaw.cold"]).toBe(true);
    const activation = one(act, "thaw.activation");
    expect(parentOf(activation)).toBe(idOf(activate));
    expect(parentOf(one(act, "thaw.scale"))).toBe(idOf(activation));
    expect(parentOf(one(act, "thaw.probe"))).toBe(idOf(activation));
    const request = one(act, "activator.request");
    expect(parentOf(request)).toBe(CLIENT_SPAN);
    expect(parentOf(one(act, "thaw.queue"))).toBe(idOf(request));
    const forward = one(act, "thaw.forward");
    expect(parentOf(forward)).toBe(idOf(request));

    // The queue-proxy (another process, through OTLP/HTTP): a child of the activator's forward, and the
    // app received the queue-proxy span's context in the same trace.
    const rx = receiver as OtlpReceiver;
    const qp = await eventually("the queue-proxy's span over OTLP", () =>
      rx.spans.find((s) => s.name === "queue-proxy.request" && s.traceId === CLIENT_TRACE),
    );
    expect(qp.service).toBe("thaw-queue-proxy");
    expect(qp.traceId).toBe(CLIENT_TRACE);
    expect(qp.parentSpanId).toBe(idOf(forward));
    expect(atApp.traceparent).toBe(`00-${CLIENT_TRACE}-${qp.spanId}-01`);
    expect(atApp.tracestate).toBe("client=1");
    // The recorder sees the SDK load in a queue-proxy with tracing on: the off case's check can fail.
    expect(readFileSync(importLog, "utf8")).toContain("@opentelemetry/sdk-trace-base");
  }, 90_000);

  it("with tracing off, no traceparent is added and the queue-proxy loads no @opentelemetry module", async () => {
    const { chain, importLog } = await startStack(false, "plain");
    const res = await httpGet(chain.port, "plain.localhost", "/");
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ traceparent: null, tracestate: null });
    // A client's own traceparent passes through untouched, as any proxy passes a header on.
    const passed = await httpGet(chain.port, "plain.localhost", "/", {
      traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`,
    });
    expect(JSON.parse(passed.body).traceparent).toBe(`00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`);
    expect(existsSync(importLog) ? readFileSync(importLog, "utf8") : "").toBe("");
  }, 90_000);
});
