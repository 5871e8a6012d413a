import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { defaultRevisionConfig, startActivator } from "@thaw/activator/node";
import {
  AutoscalerService,
  defaultQueueProxyCommand,
  type PodInfo,
  policyFor,
  type Scaler,
  startAutoscalerServer,
} from "@thaw/autoscaler-service";
import { systemClock } from "@thaw/clock";
import { startIngressHook } from "@thaw/ingress-hook/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exposedFamilies, METRICS_DOC, readMetricsDoc } from "./support/metrics-doc.js";
import { echoConfig, request, stackFrom } from "./support/stack-harness.js";

/**
 * docs/metrics.md against the real components: each one runs on loopback (the queue-proxy as a child
 * process behind a real app, the activator forwarding to it, the autoscaler scraping it, the hook activating
 * through the activator, and a whole `thaw up`), gets traffic so lazily made series exist, and is scraped.
 * The doc's table is the only list; the test parses it.
 */
const TOKEN = "metrics-doc-test-token-0123456789";
const NS = "default";
const REV = "hello-00001";
const cleanup: (() => Promise<unknown> | unknown)[] = [];
const scraped = new Map<string, string>();

/** GET `url` with the bearer token; the status and the body. */
async function get(url: string, token?: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { status: res.status, body: await res.text() };
}

/** Scrapes `url` with the token until every pattern in `want` matches (at most 15 s); the last scrape. */
async function scrapeUntil(url: string, want: RegExp[]): Promise<string> {
  const until = Date.now() + 15_000;
  let text = "";
  while (Date.now() < until) {
    text = (await get(url, TOKEN)).body;
    if (want.every((re) => re.test(text))) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return text;
}

/** A real app: answers 200 after a short wait, so the queue-proxy's breaker holds it a moment. */
async function userApp(): Promise<number> {
  const s = http.createServer((_req, res) => void setTimeout(() => res.end("ok\n"), 20));
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  cleanup.push(() => new Promise((r) => s.close(r)));
  return (s.address() as AddressInfo).port;
}

/** Spawns thaw-queue-proxy in front of `userPort` and reads its bound ports from its stderr line. */
async function queueProxy(
  userPort: number,
): Promise<{ serving: number; metrics: number; userMetrics: number }> {
  const [cmd, ...args] = defaultQueueProxyCommand();
  const child: ChildProcess = spawn(cmd as string, args, {
    stdio: ["ignore", "ignore", "pipe"],
    env: {
      PATH: process.env.PATH ?? "",
      CONTAINER_CONCURRENCY: "2",
      QUEUE_SERVING_PORT: "0",
      QUEUE_SERVING_TLS_PORT: "0",
      USER_PORT: String(userPort),
      REVISION_TIMEOUT_SECONDS: "30",
      SERVING_LOGGING_CONFIG: "",
      SERVING_LOGGING_LEVEL: "info",
      SERVING_NAMESPACE: NS,
      SERVING_CONFIGURATION: "hello",
      SERVING_REVISION: REV,
      SERVING_POD: `${REV}-pod`,
      SERVING_POD_IP: "127.0.0.1",
      THAW_ADMIN_PORT: "0",
      THAW_METRICS_PORT: "0",
      THAW_USER_METRICS_PORT: "0",
      THAW_BIND_HOST: "127.0.0.1",
    },
  });
  cleanup.push(() => child.kill("SIGKILL"));
  return new Promise((resolve, reject) => {
    let err = "";
    const timer = setTimeout(() => reject(new Error(`queue-proxy did not start: ${err}`)), 20_000);
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
      const line = err.split("\n").find((l) => l.includes("thaw-queue-proxy listening"));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      }
    });
    child.once("exit", (code) => reject(new Error(`queue-proxy exited ${code}: ${err}`)));
  });
}

/**
 * The autoscaler's pods for this test: the spawned queue-proxy (scraped for real) and one address nobody
 * listens on, so scrape errors happen. A fixed list stands in for a platform: scaling is not under test.
 */
function fixedScaler(qp: { serving: number; metrics: number }, deadPort: number): Scaler {
  const pods: PodInfo[] = [
    {
      name: "qp",
      address: `127.0.0.1:${qp.serving}`,
      metricsUrl: `http://127.0.0.1:${qp.metrics}/metrics`,
      ready: true,
      startedAt: 0,
    },
    {
      name: "gone",
      address: `127.0.0.1:${deadPort}`,
      metricsUrl: `http://127.0.0.1:${deadPort}/metrics`,
      ready: true,
      startedAt: 0,
    },
  ];
  return { scale: async () => {}, pods: () => pods, subscribe: () => () => {}, close: async () => {} };
}

beforeAll(async () => {
  // queue-proxy behind a real app, one request through it.
  const qp = await queueProxy(await userApp());
  expect((await get(`http://127.0.0.1:${qp.serving}/`)).status).toBe(200);
  scraped.set("queue-proxy", (await get(`http://127.0.0.1:${qp.userMetrics}/metrics`)).body);

  // autoscaler: scrapes the queue-proxy and a dead pod every second; the activator's stat link connects to it.
  const dead = await userApp(); // a port that is bound now and freed below
  await cleanup.pop()?.();
  const policy = policyFor({ global: {}, autoscaling: {}, containerConcurrency: 2 });
  if (!policy.ok) throw new Error(JSON.stringify(policy.issues));
  const service = new AutoscalerService({ scaler: fixedScaler(qp, dead), clock: systemClock });
  service.addRevision({ namespace: NS, name: REV }, policy.value);
  service.start();
  const autoscaler = await startAutoscalerServer({ service, clock: systemClock, token: TOKEN });
  cleanup.push(
    () => service.stop(),
    () => autoscaler.close(),
  );

  // activator: forwards to the queue-proxy, pushes stats over the websocket link.
  const activator = await startActivator({
    host: "127.0.0.1",
    port: 0,
    token: TOKEN,
    autoscalerUrl: `ws://127.0.0.1:${autoscaler.port}/`,
    podName: "metrics-doc-activator",
    drainDelayMs: 0,
    drainTimeoutMs: 1000,
    tunnelIdleMs: 300_000,
    metricsPath: "/metrics",
    revisions: [
      { namespace: NS, name: REV, ...defaultRevisionConfig, endpoints: [`127.0.0.1:${qp.serving}`] },
    ],
  });
  cleanup.push(() => activator.close());
  const proxied = await fetch(`http://127.0.0.1:${activator.port}/`, {
    headers: { "knative-serving-namespace": NS, "knative-serving-revision": REV },
  });
  expect(proxied.status).toBe(200);
  await proxied.text();

  // hook: one forward-auth decision that activates through the activator.
  const hook = await startIngressHook({
    port: 0,
    activatorUrl: `http://127.0.0.1:${activator.port}`,
    activatorToken: TOKEN,
    token: TOKEN,
    services: [{ namespace: NS, name: REV, hosts: ["hello.localhost"] }],
  });
  cleanup.push(() => hook.close());
  const decided = await fetch(`http://127.0.0.1:${hook.port}/nginx`, {
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "x-forwarded-host": "hello.localhost",
      "x-original-uri": "/",
    },
  });
  expect(decided.status).toBe(200);

  // The first scrape round and the first stat push (each runs every second).
  scraped.set(
    "autoscaler",
    await scrapeUntil(`${autoscaler.url}/metrics`, [
      /thaw_autoscaler_scrape_errors_total\{[^}]*\} [1-9]/,
      /connects_total [1-9]/,
    ]),
  );
  scraped.set("activator", (await get(`http://127.0.0.1:${activator.port}/metrics`, TOKEN)).body);
  scraped.set("ingress-hook", (await get(`http://127.0.0.1:${hook.port}/metrics`, TOKEN)).body);
  for (const [name, url] of [
    ["activator", `http://127.0.0.1:${activator.port}/metrics`],
    ["autoscaler", `${autoscaler.url}/metrics`],
    ["ingress-hook", `http://127.0.0.1:${hook.port}/metrics`],
  ] as const) {
    expect((await get(url)).status, `${name} /metrics without the token`).toBe(401);
  }

  // thaw up: a real cold start through the gateway, then its one metrics page.
  const up = await stackFrom(echoConfig([`token: ${TOKEN}`]));
  cleanup.push(() => up.dispose());
  const cold = await request(up.stack.url, { headers: { host: "echo.localhost" } });
  expect(cold.status).toBe(200);
  expect((await get(`${up.stack.url}/_thaw/metrics`)).status).toBe(401);
  // The activator probes a starting pod itself and may answer before the scaler's own probe (every 50 ms)
  // has seen the pod ready: wait (bounded) for that too.
  scraped.set(
    "thaw-up",
    await scrapeUntil(`${up.stack.url}/_thaw/metrics`, [
      /thaw_autoscaler_ready_pods\{[^}]*revision="echo"\} [1-9]/,
    ]),
  );
}, 90_000);

afterAll(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
}, 30_000);

describe(`${METRICS_DOC.split("/").slice(-2).join("/")} against every component`, () => {
  const doc = readMetricsDoc();
  const components = ["queue-proxy", "activator", "autoscaler", "ingress-hook", "thaw-up"];

  it("names only known components", () => {
    const unknown = [...doc.values()].flatMap((m) =>
      m.components.filter((c) => !components.includes(c)).map((c) => `${m.name}: ${c}`),
    );
    expect(unknown).toEqual([]);
  });

  it.each(components)(
    "%s exposes exactly the metrics the doc lists for it, with their types",
    (component) => {
      const text = scraped.get(component) ?? "";
      const exposed = exposedFamilies(text);
      const listed = [...doc.values()].filter((m) => m.components.includes(component));
      const undocumented = [...exposed.keys()].filter((n) => !doc.get(n)?.components.includes(component));
      const missing = listed.filter((m) => !exposed.has(m.name)).map((m) => m.name);
      expect({ undocumented, missing }, `${component}`).toEqual({ undocumented: [], missing: [] });
      for (const m of listed) expect(`${m.name} ${exposed.get(m.name)}`).toBe(`${m.name} ${m.type}`);
    },
  );

  it("the traffic moved the series (the scrape shows the requests, not just declarations)", () => {
    expect(scraped.get("queue-proxy")).toMatch(/kn_serving_invocation_duration_seconds_count\{[^}]*\} 1\n/);
    expect(scraped.get("activator")).toMatch(
      /thaw_activator_cold_start_seconds_count\{namespace="default",revision="hello-00001"\} 1\n/,
    );
    expect(scraped.get("autoscaler")).toMatch(/thaw_autoscaler_scrape_errors_total\{[^}]*\} [1-9]/);
    expect(scraped.get("autoscaler")).toMatch(/thaw_autoscaler_stat_link_connects_total [1-9]/);
    expect(scraped.get("ingress-hook")).toContain("thaw_hook_activations_total 1\n");
    expect(scraped.get("thaw-up")).toMatch(
      /thaw_activator_cold_start_seconds_count\{[^}]*revision="echo"\} 1\n/,
    );
    expect(scraped.get("thaw-up")).toMatch(/thaw_autoscaler_ready_pods\{[^}]*revision="echo"\} [1-9]/);
  });
});
