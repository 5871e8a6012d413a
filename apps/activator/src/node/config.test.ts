import { describe, expect, it } from "vitest";
import { readConfig } from "./config.js";

describe("readConfig", () => {
  it("defaults", () => {
    const r = readConfig([], {});
    expect(r.ok && r.config).toMatchObject({
      port: 8012,
      host: "127.0.0.1",
      drainDelayMs: 45_000,
      revisions: [],
    });
  });

  it("flags win over env; revisions get Knative defaults", () => {
    const r = readConfig(["--port", "9000", "--token=t"], {
      THAW_ACTIVATOR_PORT: "1",
      THAW_REVISIONS: JSON.stringify([
        { namespace: "d", name: "r", endpoints: ["127.0.0.1:1"], containerConcurrency: 2 },
      ]),
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config.port).toBe(9000);
    expect(r.config.token).toBe("t");
    expect(r.config.revisions[0]).toMatchObject({
      containerConcurrency: 2,
      timeoutSeconds: 300,
      bodyBufferCap: 1048576,
    });
  });

  it("body budget: only the bounds given, by flag or variable; a bad one names its variable", () => {
    const r = readConfig(["--body-buffer-revision-bytes", "1024"], {
      THAW_BODY_BUFFER_PROCESS_BYTES: "4096",
    });
    expect(r.ok && r.config.bodyBudget).toEqual({ revisionBytes: 1024, processBytes: 4096 });
    const unset = readConfig([], {});
    expect(unset.ok && unset.config.bodyBudget).toEqual({});
    const bad = readConfig([], { THAW_BODY_BUFFER_REVISION_BYTES: "1MB" });
    expect(bad.ok ? [] : bad.issues.map((i) => i.path)).toEqual(["THAW_BODY_BUFFER_REVISION_BYTES"]);
  });

  it("cluster settings: Services with optional port names, the downward API's POD_* variables", () => {
    const r = readConfig(["--config", "thaw.config.yaml", "--autoscaler-service", "thaw-autoscaler:http"], {
      THAW_ACTIVATOR_SERVICE: "thaw-activator",
      POD_NAMESPACE: "thaw",
      POD_IP: "10.1.2.3",
      POD_NAME: "thaw-activator-abc",
    });
    expect(r.ok && r.config).toMatchObject({
      configFile: "thaw.config.yaml",
      podName: "thaw-activator-abc",
      cluster: {
        namespace: "thaw",
        podIp: "10.1.2.3",
        activatorService: { service: "thaw-activator", portName: undefined },
        autoscalerService: { service: "thaw-autoscaler", portName: "http" },
      },
    });
  });

  it.each([
    { name: "bad port", argv: ["--port", "x"], env: {}, path: "THAW_ACTIVATOR_PORT" },
    {
      name: "--config beside THAW_REVISIONS",
      argv: ["--config", "thaw.config.yaml"],
      env: { THAW_REVISIONS: "[]" },
      path: "THAW_CONFIG",
    },
    {
      name: "bad activator Service",
      argv: ["--activator-service", "Thaw_Act"],
      env: { POD_IP: "10.0.0.1" },
      path: "THAW_ACTIVATOR_SERVICE",
    },
    {
      name: "activator Service without POD_IP",
      argv: ["--activator-service", "thaw-activator"],
      env: {},
      path: "POD_IP",
    },
    {
      name: "autoscaler Service beside its URL",
      argv: [],
      env: { THAW_AUTOSCALER_SERVICE: "thaw-autoscaler:http", THAW_AUTOSCALER_URL: "ws://a:8080" },
      path: "THAW_AUTOSCALER_SERVICE",
    },
    { name: "unknown flag", argv: ["--nope", "1"], env: {}, path: "--nope" },
    { name: "flag without value", argv: ["--port"], env: {}, path: "--port" },
    {
      name: "bad autoscaler url",
      argv: [],
      env: { THAW_AUTOSCALER_URL: "autoscaler:8080" },
      path: "THAW_AUTOSCALER_URL",
    },
    { name: "revisions not JSON", argv: [], env: { THAW_REVISIONS: "[" }, path: "THAW_REVISIONS" },
    {
      name: "endpoint without port",
      argv: [],
      env: { THAW_REVISIONS: '[{"namespace":"d","name":"r","endpoints":["h"]}]' },
      path: "THAW_REVISIONS[0].endpoints",
    },
    {
      name: "negative concurrency",
      argv: [],
      env: { THAW_REVISIONS: '[{"namespace":"d","name":"r","containerConcurrency":-1}]' },
      path: "THAW_REVISIONS[0].containerConcurrency",
    },
  ])("issue: $name", ({ argv, env, path }) => {
    const r = readConfig(argv, env);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path)).toContain(path);
  });
});
