import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ConcurrencyReporter } from "@thaw/activation";
import {
  type ActivatorDeps,
  activateAnswer,
  applyPodProblem,
  createActivatorApp,
  defaultRevisionConfig,
  LocalCoordinator,
  StaticDirectory,
  StaticEndpointSource,
} from "@thaw/activator";
import { createH1Forwarder } from "@thaw/activator/node";
import { systemClock } from "@thaw/clock";
import { type ActivatorClient, httpActivatorClient, inProcessActivatorClient } from "@thaw/ingress-hook";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// `thaw up`'s hook calls its in-process activator directly (issue 30: no Request, body stream or JSON on
// the cold path). Whatever the activator answers, the hook must read the same outcome as over HTTP: each
// case below runs once through each client, on its own revision, against one real activator.

const directory = new StaticDirectory();
const endpoints = new StaticEndpointSource();
const coordinator = new LocalCoordinator({
  endpoints,
  clock: systemClock,
  fetch: (input, init) => fetch(input as string, init as RequestInit),
});
const h1 = createH1Forwarder();
const deps: ActivatorDeps = {
  revisions: directory,
  coordinator,
  forward: h1.forward,
  clock: systemClock,
  reporter: new ConcurrencyReporter({ podName: "test", clock: systemClock, send: () => {} }),
  warm: () => 1_700_000_000_000,
};
const { app } = createActivatorApp(deps);
const clients: Record<string, ActivatorClient> = {
  http: httpActivatorClient({
    baseUrl: "http://activator.thaw.internal",
    fetch: (req) => Promise.resolve(app.fetch(req)),
    clock: systemClock,
  }),
  inproc: inProcessActivatorClient((req, header) => activateAnswer(req, deps, header)),
};

/** A pod that answers the activator's queue probe. */
let pod: Server;
let podAddress = "";
/** A port nothing listens on. */
let deadAddress = "";

beforeAll(async () => {
  pod = createServer((req, res) => res.end(req.headers["k-network-probe"] === "queue" ? "queue" : "ok"));
  await new Promise<void>((r) => pod.listen(0, "127.0.0.1", r));
  podAddress = `127.0.0.1:${(pod.address() as AddressInfo).port}`;
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
  deadAddress = `127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((r) => closed.close(r));
});

afterAll(async () => {
  coordinator.close();
  await h1.close();
  pod.closeAllConnections();
  await new Promise((r) => pod.close(r));
});

/** A revision for one case and one client, set up by `setup` (known revisions only). */
function revision(name: string, eps: string[] | undefined) {
  const key = { namespace: "default", name };
  if (eps) {
    directory.set(key, defaultRevisionConfig);
    endpoints.set(key, eps);
  }
  return key;
}

const cases: {
  name: string;
  eps?: () => string[];
  request?: Record<string, unknown>;
  before?: (key: { namespace: string; name: string }) => void;
}[] = [
  { name: "ready", eps: () => [podAddress], request: { timeoutMs: 5000 } },
  { name: "unknown", request: { timeoutMs: 5000 } },
  { name: "timeout", eps: () => [deadAddress], request: { timeoutMs: 250 } },
  {
    name: "failed",
    eps: () => [deadAddress],
    request: { timeoutMs: 5000 },
    before: (key) =>
      applyPodProblem({ revisions: directory, coordinator }, key, {
        severity: "failing",
        message: "the app exited with status 3",
        restartInMs: 4000,
      }),
  },
  { name: "bad-timeout", eps: () => [podAddress], request: { timeoutMs: -1 } },
  { name: "hint", eps: () => [podAddress], request: { ttlSeconds: 60 } },
];

describe("the in-process activation client (thaw up's hook)", () => {
  it.each(cases)("$name: the same outcome as over HTTP", async (c) => {
    const outcomes: Record<string, unknown> = {};
    for (const [client, activator] of Object.entries(clients)) {
      const key = revision(`${c.name}-${client}`, c.eps?.());
      c.before?.(key);
      const outcome = await activator.activate({ ...key, ...c.request } as never);
      // The revision's name is the one thing that differs between the two runs.
      outcomes[client] = JSON.parse(JSON.stringify(outcome).replaceAll(key.name, "<rev>"));
    }
    expect(outcomes.inproc).toEqual(outcomes.http);
    if (c.name === "ready")
      expect(outcomes.http).toEqual({ kind: "ready", endpoints: [podAddress], coldStart: true });
    if (c.name === "unknown") expect(outcomes.http).toMatchObject({ kind: "unknown" });
    if (c.name === "timeout") expect(outcomes.http).toMatchObject({ kind: "timeout", retryAfterSeconds: 1 });
    if (c.name === "failed") {
      expect(outcomes.http).toMatchObject({
        kind: "failed",
        retryAfterSeconds: 4,
        message: "the app exited with status 3",
      });
    }
    if (c.name === "bad-timeout") expect(outcomes.http).toMatchObject({ kind: "unavailable" });
  });

  it("passes the hook's trace context on as the HTTP client's headers would", async () => {
    const seen: (string | null)[] = [];
    const client = inProcessActivatorClient(async (_req, header) => {
      seen.push(header("traceparent"), header("tracestate"), header("authorization"));
      return { status: 200, body: { endpoints: ["10.0.0.1:8012"], coldStart: false }, headers: {} };
    });
    const carrier = {
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      tracestate: "a=1",
    };
    expect(await client.activate({ namespace: "default", name: "r", timeoutMs: 1000 }, carrier)).toEqual({
      kind: "ready",
      endpoints: ["10.0.0.1:8012"],
      coldStart: false,
    });
    expect(seen).toEqual([carrier.traceparent, "a=1", null]);
  });
});
