import { spawnSync } from "node:child_process";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { BIN, baseEnv, get, runBin, startInProcess, until } from "./helpers.js";
import { sharedBackend } from "./shared-backend.js";

const backend = sharedBackend();

function runOnce(env: Record<string, string | undefined>) {
  const clean = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  return spawnSync(process.execPath, [BIN], {
    env: { PATH: process.env["PATH"] ?? "", ...clean },
    encoding: "utf8",
    timeout: 10_000,
  });
}

describe("start-up validation (c.2)", () => {
  const rows: { name: string; env: Record<string, string | undefined>; messages: RegExp[] }[] = [
    {
      name: "every missing required variable is named at once",
      env: {
        ...baseEnv(8080),
        CONTAINER_CONCURRENCY: undefined,
        USER_PORT: undefined,
        SERVING_POD: undefined,
      },
      messages: [
        /CONTAINER_CONCURRENCY is required: expected an integer in \[0, 1000\]/,
        /USER_PORT is required/,
        /SERVING_POD is required \(it may be empty\)/,
      ],
    },
    {
      name: "malformed numbers name the expected form",
      env: {
        ...baseEnv(8080),
        QUEUE_SERVING_PORT: "80x",
        REVISION_TIMEOUT_SECONDS: "-1",
        CONTAINER_CONCURRENCY: "1001",
      },
      messages: [
        /QUEUE_SERVING_PORT is "80x": expected a TCP port number/,
        /REVISION_TIMEOUT_SECONDS is "-1": expected whole seconds >= 0/,
        /CONTAINER_CONCURRENCY is "1001"/,
      ],
    },
    {
      name: "SERVING_READINESS_PROBE that is not JSON",
      env: { ...baseEnv(8080), SERVING_READINESS_PROBE: "{tcpSocket" },
      messages: [/SERVING_READINESS_PROBE is not a valid probe/, /invalid JSON/],
    },
    {
      name: "SERVING_READINESS_PROBE as an array without multi-container probing",
      env: { ...baseEnv(8080), SERVING_READINESS_PROBE: "[]" },
      messages: [/expected a JSON object/],
    },
    {
      name: "an OTEL_TRACES_EXPORTER it does not have (docs/tracing.md)",
      env: { ...baseEnv(8080), OTEL_TRACES_EXPORTER: "zipkin" },
      messages: [/tracing: OTEL_TRACES_EXPORTER: "zipkin" is not supported: use otlp, console or none/],
    },
    {
      name: "an OTLP endpoint that is not a URL",
      env: { ...baseEnv(8080), OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" },
      messages: [
        /tracing: OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" must be an http:\/\/ or https:\/\/ URL/,
      ],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const out = runOnce(row.env);
      expect(out.status).toBe(1);
      for (const m of row.messages) expect(out.stderr).toMatch(m);
    });
  }

  it("starts with a valid probe and reports ready through it", async () => {
    const child = await runBin(
      baseEnv(backend.port, {
        SERVING_READINESS_PROBE: JSON.stringify({
          tcpSocket: { port: backend.port, host: "127.0.0.1" },
          successThreshold: 1,
        }),
      }),
    );
    try {
      const res = await get(`http://127.0.0.1:${child.ports.serving}/`, {
        "user-agent": "kube-probe/1.30",
        "k-network-probe": "queue",
      });
      expect(res.status).toBe(200);
      expect(res.body).toBe("queue");
    } finally {
      child.proc.kill("SIGKILL");
    }
  });
});

describe("the request path warmed once it listens (src/warm-up.ts)", () => {
  it("runs, says so on stderr, and counts nothing in the pod's request metrics", async () => {
    const seen = backend.seen.length;
    const child = await runBin(baseEnv(backend.port));
    try {
      await until(() => child.stderr().includes("request path warmed"), 10_000);
      const line = child
        .stderr()
        .split("\n")
        .find((l) => l.includes("request path warmed"));
      expect(JSON.parse(line ?? "{}")).toMatchObject({ ok: true, ms: expect.any(Number) });
      // The pod's request metrics count from its start (cumulative): none of the warm-up's requests is in
      // them, and the pod's backend saw none.
      const metrics = await get(`http://127.0.0.1:${child.ports.userMetrics}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.body).not.toMatch(/^kn_serving_invocation_duration_seconds_count\{/m);
      expect(backend.seen).toHaveLength(seen);
      // And once it serves one, that one is counted there.
      expect((await get(`http://127.0.0.1:${child.ports.serving}/counted`)).status).toBe(200);
      const after = await get(`http://127.0.0.1:${child.ports.userMetrics}/metrics`);
      expect(after.body).toMatch(/^kn_serving_invocation_duration_seconds_count\{[^}]*\} 1$/m);
    } finally {
      child.proc.kill("SIGKILL");
    }
  });
});

describe("drain on SIGTERM (a.4)", () => {
  it("503s probes, restarts the quiet period on traffic, finishes in-flight work and exits 0", async () => {
    // A quiet period well above the 300 ms between the requests below, so a loaded machine's slow request
    // does not let it run out mid-test.
    const child = await runBin(baseEnv(backend.port, { THAW_DRAIN_QUIET_PERIOD_MS: "1500" }));
    const url = `http://127.0.0.1:${child.ports.serving}`;
    const inFlight = get(`${url}/inflight?sleep=1500`);
    await until(() => backend.seen.some((s) => s.url.startsWith("/inflight")));
    const waitForDrain = get(`http://127.0.0.1:${child.ports.admin}/wait-for-drain`);
    const t0 = Date.now();
    child.proc.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 100));
    const probe = await get(url, { "user-agent": "kube-probe/1.30", "k-network-probe": "queue" });
    expect(probe.status).toBe(503);
    expect(probe.body).toBe("shutting down\n");
    // Requests keep being served and each restarts the quiet period.
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 300));
      expect((await get(`${url}/during`)).status).toBe(200);
    }
    const lastRequestAt = Date.now();
    expect((await waitForDrain).status).toBe(200);
    expect(Date.now() - lastRequestAt).toBeGreaterThanOrEqual(1200);
    expect((await inFlight).status).toBe(200);
    expect(await child.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it("keeps an upgraded connection working through the drain, then exits once it closes", async () => {
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    wss.on("connection", (ws) => ws.on("message", (m) => ws.send(`echo:${m}`)));
    await new Promise<void>((r) => wss.once("listening", () => r()));
    const child = await runBin(
      baseEnv((wss.address() as AddressInfo).port, {
        THAW_DRAIN_QUIET_PERIOD_MS: "200",
        THAW_HIJACKED_GRACE_MS: "5000",
      }),
    );
    try {
      const ws = new WebSocket(`ws://127.0.0.1:${child.ports.serving}/`);
      const replies: string[] = [];
      ws.on("message", (m) => replies.push(String(m)));
      await new Promise<void>((r, j) => {
        ws.once("open", () => r());
        ws.once("error", j);
      });
      child.proc.kill("SIGTERM");
      await new Promise((r) => setTimeout(r, 700)); // past the quiet period: servers are closed now
      ws.send("after-drain");
      await until(() => replies.length === 1);
      expect(replies).toEqual(["echo:after-drain"]);
      ws.close();
      expect(await child.exited).toBe(0);
    } finally {
      child.proc.kill("SIGKILL");
      await new Promise<void>((r) => wss.close(() => r()));
    }
  });
});

describe("liveness restart (/wait-for-drain without SIGTERM)", () => {
  it("drains, then resets after 1 s so probes pass again", async () => {
    const qp = await startInProcess(backend.port, { THAW_DRAIN_QUIET_PERIOD_MS: "30000" });
    try {
      const probe = () => get(qp.url, { "user-agent": "kube-probe/1.30", "k-network-probe": "queue" });
      const t0 = Date.now();
      const waitForDrain = get(`http://127.0.0.1:${qp.ports.admin}/wait-for-drain`);
      await until(() => qp.drainer.draining);
      expect((await probe()).status).toBe(503);
      expect((await waitForDrain).status).toBe(200);
      const elapsed = Date.now() - t0;
      expect(elapsed).toBeGreaterThanOrEqual(950);
      expect(elapsed).toBeLessThan(5000);
      const again = await probe();
      expect(again.status).toBe(200);
      expect(again.body).toBe("queue");
    } finally {
      await qp.close();
    }
  });
});
