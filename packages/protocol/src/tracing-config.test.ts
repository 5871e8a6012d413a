import { describe, expect, it } from "vitest";
import { parseTracingEnv } from "./tracing-config.js";

const d = { serviceName: "thaw-test" };

describe("parseTracingEnv", () => {
  it.each([
    ["nothing set: off", {}, null],
    ["OTEL_TRACES_EXPORTER=none: off", { OTEL_TRACES_EXPORTER: "none" }, null],
    [
      "OTEL_SDK_DISABLED wins over an exporter",
      { OTEL_SDK_DISABLED: "true", OTEL_TRACES_EXPORTER: "otlp" },
      null,
    ],
  ])("%s", (_name, env, value) => {
    expect(parseTracingEnv(env, d)).toEqual({ ok: true, value });
  });

  it("otlp with the base endpoint gets /v1/traces appended; the service name defaults to the component's", () => {
    const r = parseTracingEnv(
      { OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318/" },
      d,
    );
    expect(r).toEqual({
      ok: true,
      value: {
        exporter: "otlp",
        url: "http://127.0.0.1:4318/v1/traces",
        serviceName: "thaw-test",
        sampleRatio: 1,
      },
    });
  });

  it("the per-signal endpoint is used as is, OTEL_SERVICE_NAME names the service, --tracing means otlp", () => {
    const r = parseTracingEnv(
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://c.example/t", OTEL_SERVICE_NAME: "edge" },
      { ...d, enable: true },
    );
    expect(r.ok && r.value).toMatchObject({
      exporter: "otlp",
      url: "https://c.example/t",
      serviceName: "edge",
    });
  });

  it.each([
    ["an unknown exporter", { OTEL_TRACES_EXPORTER: "zipkin" }, "OTEL_TRACES_EXPORTER"],
    [
      "an endpoint that is no URL",
      { OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: "localhost" },
      "OTEL_EXPORTER_OTLP_ENDPOINT",
    ],
    [
      "a non-http endpoint",
      { OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "grpc://x:4317" },
      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ],
    [
      "a parent-based sampler (a client would decide)",
      { OTEL_TRACES_EXPORTER: "otlp", OTEL_TRACES_SAMPLER: "parentbased_always_on" },
      "OTEL_TRACES_SAMPLER",
    ],
    [
      "a ratio above 1",
      { OTEL_TRACES_EXPORTER: "otlp", OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" },
      "OTEL_TRACES_SAMPLER_ARG",
    ],
  ])("%s is an issue naming the variable", (_name, env, path) => {
    const r = parseTracingEnv(env, d);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path)).toEqual([path]);
  });
});
