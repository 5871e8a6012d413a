import { decodeStat, type Stat } from "@thaw/protocol";
import { describe, expect, it } from "vitest";
import { get, startInProcess } from "./helpers.js";
import { sharedBackend } from "./shared-backend.js";

const backend = sharedBackend();

async function scrape(port: number): Promise<{ stat: Stat; contentType: string | null; status: number }> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, {
    headers: { accept: "application/protobuf" },
  });
  const decoded = decodeStat(new Uint8Array(await res.arrayBuffer()));
  if (!decoded.ok) throw new Error("undecodable Stat");
  return { stat: decoded.value, contentType: res.headers.get("content-type"), status: res.status };
}

describe(":9090 /metrics (protobuf Stat, c.5 and f.1)", () => {
  it("has only the pod name before the first report", async () => {
    const qp = await startInProcess(backend.port);
    try {
      const { stat, contentType, status } = await scrape(qp.ports.metrics);
      expect(status).toBe(200);
      expect(contentType).toBe("application/protobuf");
      expect(stat).toEqual({
        podName: "hello-00001-deployment-abc",
        averageConcurrentRequests: 0,
        averageProxiedConcurrentRequests: 0,
        requestCount: 0,
        proxiedRequestCount: 0,
        processUptime: 0,
        timestamp: 0,
      });
    } finally {
      await qp.close();
    }
  });

  it("reports per-second counts, proxied requests and time-weighted concurrency", async () => {
    const qp = await startInProcess(backend.port);
    try {
      // Align with a report boundary, then load less than one period. On a loaded machine the load may
      // not fit in the period; then try again from the next boundary (at most 3 times).
      let stat: Awaited<ReturnType<typeof scrape>>["stat"] | undefined;
      for (let attempt = 0; attempt < 3 && stat === undefined; attempt++) {
        const first = (await scrape(qp.ports.metrics)).stat.processUptime;
        while ((await scrape(qp.ports.metrics)).stat.processUptime === first)
          await new Promise((r) => setTimeout(r, 20));
        const t0 = Date.now();
        const slow = get(`${qp.url}/slow?sleep=600`); // one long request: ~0.6 of concurrency-seconds
        for (let i = 0; i < 3; i++) await get(`${qp.url}/plain`);
        // Proxied requests of 50 ms each, so their share (~0.1) cannot round to 0 on a millisecond clock.
        for (let i = 0; i < 2; i++)
          await get(`${qp.url}/proxied?sleep=50`, { "k-proxy-request": "activator" });
        await slow;
        if (Date.now() - t0 >= 950) continue; // not inside one period
        const uptime = (await scrape(qp.ports.metrics)).stat.processUptime;
        let next = (await scrape(qp.ports.metrics)).stat;
        while (next.processUptime === uptime) {
          await new Promise((r) => setTimeout(r, 20));
          next = (await scrape(qp.ports.metrics)).stat;
        }
        stat = next;
      }
      if (stat === undefined) throw new Error("the load never fitted in one 1 s reporting period (3 tries)");
      expect(stat.podName).toBe("hello-00001-deployment-abc");
      expect(stat.requestCount).toBe(6);
      expect(stat.proxiedRequestCount).toBe(2);
      expect(stat.averageConcurrentRequests).toBeGreaterThan(0.55);
      expect(stat.averageConcurrentRequests).toBeLessThan(1.2);
      expect(stat.averageProxiedConcurrentRequests).toBeGreaterThan(0.05);
      expect(stat.averageProxiedConcurrentRequests).toBeLessThan(0.3);
      expect(stat.processUptime).toBeGreaterThanOrEqual(2);
    } finally {
      await qp.close();
    }
  });
});

describe(":9090 /thaw/listening (what listens beside the queue-proxy)", () => {
  it("names the app's port and the ports others listen on, never the queue-proxy's own", async () => {
    const qp = await startInProcess(backend.port);
    try {
      const res = await fetch(`http://127.0.0.1:${qp.ports.metrics}/thaw/listening`);
      expect(res.headers.get("content-type")).toBe("application/json");
      const body = (await res.json()) as { userPort: number; listening: number[] };
      expect(body.userPort).toBe(backend.port);
      // The backend runs in this process, as the queue-proxy does here: both are "own". In a pod the app is
      // another process (listeners.test.ts in @thaw/readiness shows another process's port is named).
      for (const own of [qp.ports.serving, qp.ports.admin, qp.ports.metrics]) {
        expect(body.listening).not.toContain(own);
      }
    } finally {
      await qp.close();
    }
  });
});

describe(":9091 Prometheus request metrics (c.6)", () => {
  it("has Knative's duration buckets per status code, and the queue depth when a breaker runs", async () => {
    const qp = await startInProcess(backend.port, { CONTAINER_CONCURRENCY: "5" });
    try {
      await get(`${qp.url}/a`);
      await get(`${qp.url}/b?status=404`);
      await get(`${qp.url}/`, { "user-agent": "kube-probe/1.30", "k-network-probe": "queue" }); // not counted
      const text = (await get(`http://127.0.0.1:${qp.ports.userMetrics}/metrics`)).body;
      const les = [...text.matchAll(/http_response_status_code="200",le="([^"]+)"/g)].map((m) => m[1]);
      expect(les).toEqual([
        "0.005",
        "0.01",
        "0.025",
        "0.05",
        "0.075",
        "0.1",
        "0.25",
        "0.5",
        "0.75",
        "1",
        "2.5",
        "5",
        "7.5",
        "10",
        "+Inf",
      ]);
      expect(text).toMatch(
        /kn_serving_invocation_duration_seconds_count\{[^}]*http_response_status_code="200"\} 1\n/,
      );
      expect(text).toMatch(
        /kn_serving_invocation_duration_seconds_count\{[^}]*http_response_status_code="404"\} 1\n/,
      );
      expect(text).toMatch(/# TYPE kn_serving_queue_depth gauge\nkn_serving_queue_depth\{[^}]*\} 0\n/);
    } finally {
      await qp.close();
    }
  });

  it("is off when THAW_REQUEST_METRICS=false", async () => {
    const qp = await startInProcess(backend.port, { THAW_REQUEST_METRICS: "false" });
    try {
      expect(qp.ports.userMetrics).toBe(0);
    } finally {
      await qp.close();
    }
  });
});
