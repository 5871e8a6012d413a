import type { QueueProber } from "@thaw/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, startInProcess } from "./helpers.js";
import { sharedBackend } from "./shared-backend.js";

const backend = sharedBackend();

const KUBE = { "user-agent": "kube-probe/1.30" };

// knative-spec.md a.3, "QP health handler": every row, reached through the drainer's health-check rule.
describe("health handler rows (kubelet / activator probes)", () => {
  const rows: {
    name: string;
    prober: QueueProber | null;
    headers: Record<string, string>;
    status: number;
    body: string;
  }[] = [
    {
      name: "K-Network-Probe missing: 400 with the empty value",
      prober: () => true,
      headers: KUBE,
      status: 400,
      body: "unexpected probe header value: \n",
    },
    {
      name: "K-Network-Probe other than queue: 400 naming it",
      prober: () => true,
      headers: { ...KUBE, "k-network-probe": "activator" },
      status: 400,
      body: "unexpected probe header value: activator\n",
    },
    {
      name: "no prober configured: 500 no probe",
      prober: null,
      headers: { ...KUBE, "k-network-probe": "queue" },
      status: 500,
      body: "no probe\n",
    },
    {
      name: "prober says not ready: 503, empty body",
      prober: () => false,
      headers: { ...KUBE, "k-network-probe": "queue" },
      status: 503,
      body: "",
    },
    {
      name: "prober says ready: 200 queue",
      prober: () => true,
      headers: { ...KUBE, "k-network-probe": "queue" },
      status: 200,
      body: "queue",
    },
    {
      name: "activator probe (Knative-Activator-Probe UA) on /healthz: 200 queue",
      prober: () => true,
      headers: { "user-agent": "Knative-Activator-Probe", "k-network-probe": "queue" },
      status: 200,
      body: "queue",
    },
    {
      name: "autoscaler probe reaching a queue-proxy: 400 (not an activator)",
      prober: () => true,
      headers: { "user-agent": "Knative-Autoscaling-Probe", "k-network-probe": "activator" },
      status: 400,
      body: "unexpected probe header value: activator\n",
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const qp = await startInProcess(backend.port, {}, row.prober);
      try {
        const before = backend.seen.length;
        const res = await get(`${qp.url}/healthz`, row.headers);
        expect(res.status).toBe(row.status);
        expect(res.body).toBe(row.body);
        expect(backend.seen.length).toBe(before); // never reaches the app
      } finally {
        await qp.close();
      }
    });
  }
});

describe("network probe rows (K-Network-Probe: probe)", () => {
  let qp: Awaited<ReturnType<typeof startInProcess>>;
  beforeAll(async () => {
    qp = await startInProcess(backend.port);
  });
  afterAll(async () => {
    await qp.close();
  });
  it("echoes K-Network-Hash with 200", async () => {
    const res = await get(`${qp.url}/healthz`, { "k-network-probe": "probe", "k-network-hash": "override" });
    expect(res.status).toBe(200);
    expect(res.headers["k-network-hash"]).toBe("override");
  });
  it("answers 400 without a hash", async () => {
    const res = await get(`${qp.url}/healthz`, { "k-network-probe": "probe" });
    expect(res.status).toBe(400);
    expect(res.body).toBe('a probe request must contain a non-empty "K-Network-Hash" header\n');
  });
  it("passes K-Network-Probe: queue without a prober user-agent to the app, as Knative does", async () => {
    const res = await get(`${qp.url}/x`, { "k-network-probe": "queue" });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).headers["k-network-probe"]).toBe("queue");
  });
});

describe("while draining", () => {
  const rows: { name: string; headers: Record<string, string> }[] = [
    { name: "kubelet health check", headers: { ...KUBE, "k-network-probe": "queue" } },
    {
      name: "activator probe",
      headers: { "user-agent": "Knative-Activator-Probe", "k-network-probe": "queue" },
    },
    { name: "network probe", headers: { "k-network-probe": "probe", "k-network-hash": "h" } },
  ];
  for (const row of rows) {
    it(`${row.name}: 503 shutting down`, async () => {
      const qp = await startInProcess(backend.port, { THAW_DRAIN_QUIET_PERIOD_MS: "60000" });
      try {
        void qp.drainer.drain();
        const res = await get(`${qp.url}/`, row.headers);
        expect(res.status).toBe(503);
        expect(res.body).toBe("shutting down\n");
      } finally {
        qp.drainer.reset();
        await qp.close();
      }
    });
  }
});
