/**
 * Scale-down safety through the real activator (@thaw/activator's Node server) to pods that are real
 * processes behind a real thaw-queue-proxy (drain-app.mjs; the local scaler of `thaw up` runs them), with
 * the queue-proxy's drain as Knative specifies it: on SIGTERM its readiness goes false at once, it keeps
 * serving for the quiet period (routers elsewhere still catch up), then stops accepting and finishes what
 * is in flight. Requests are addressed as Knative's ingress addresses the activator
 * (`Knative-Serving-Namespace`/`-Revision`).
 *
 * Kubernetes is emulated by its documented behaviour, not run: a deleted pod's endpoint leaves the ready set
 * the activator watches after a propagation delay (here ENDPOINTS_LAG_MS, shorter than the quiet period,
 * which is what the quiet period is for). Requests sent before that update may still reach the draining pod
 * and must succeed; requests sent after it must never reach it (counted at the pod).
 */
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningActivator, readConfig, startActivator } from "@thaw/activator/node";
import { LocalScaler, type PodInfo } from "@thaw/autoscaler-service";
import { printFigures } from "@thaw/bench-kit/overload";
import { Header, ProbeValue, UserAgent } from "@thaw/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arrivals, type Exchange, slowRequest, sseStream, wsSession } from "./support/drain-streams.js";
import { until } from "./support/up-process.js";

const rev = { namespace: "default", name: "drain" };
const TOKEN = "activator-token-for-drain-tests";
const QUIET_MS = 3000;
const ENDPOINTS_LAG_MS = 1000;
const STREAM_MS = 6000;
const EVERY_MS = 200;
const N = STREAM_MS / EVERY_MS;
const SLOW_BYTES = 256 * 1024;
const drainApp = join(import.meta.dirname, "support/drain-app.mjs");
const routeHeaders = { [Header.namespace]: rev.namespace, [Header.revision]: rev.name };

const dir = mkdtempSync(join(tmpdir(), "thaw-activator-drain-"));
const log = join(dir, "arrivals.jsonl");
let scaler: LocalScaler;
let activator: RunningActivator;
let base = "";
/** When the activator last learned that the ready set shrank. */
let lastRemovalDeliveredAt = 0;

beforeAll(async () => {
  scaler = new LocalScaler();
  scaler.register({
    ...rev,
    command: [process.execPath, drainApp],
    env: { DRAIN_LOG: log },
    portEnv: "PORT",
    containerConcurrency: 0,
    timeoutSeconds: 30,
    drainQuietPeriodMs: QUIET_MS,
  });
  const read = readConfig(
    [
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--token",
      TOKEN,
      "--revisions",
      JSON.stringify([{ ...rev, endpoints: [], containerConcurrency: 0, timeoutSeconds: 30 }]),
    ],
    {},
  );
  if (!read.ok) throw new Error(JSON.stringify(read.issues));
  activator = await startActivator(read.config, {
    scaler: { poke: () => {} },
    endpoints: {
      // Additions arrive at once; a pod that left (stopping) leaves the activator's set ENDPOINTS_LAG_MS later.
      subscribe(key, onChange) {
        let delivered: string[] = [];
        const deliver = (pods: PodInfo[]) => {
          const next = pods.map((p) => p.address);
          const shrinks = delivered.some((a) => !next.includes(a));
          const send = () => {
            delivered = next;
            if (shrinks) lastRemovalDeliveredAt = Date.now();
            onChange(next);
          };
          if (shrinks) setTimeout(send, ENDPOINTS_LAG_MS);
          else send();
        };
        deliver(scaler.pods(key));
        return scaler.subscribe(key, deliver);
      },
    },
  });
  base = `http://127.0.0.1:${activator.port}`;
  await scaler.scale(rev, 2);
  await until(() => scaler.pods(rev).filter((p) => p.ready).length === 2, 30_000, "two ready pods");
  await until(async () => (await get("/warmup")).status === 200, 30_000, "the activator to answer");
}, 60_000);

afterAll(async () => {
  await activator?.close();
  await scaler?.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** A GET through the activator with Knative's route headers; never rejects. */
function get(path: string): Promise<{ status: number; pod: string }> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: "127.0.0.1", port: activator.port, path, headers: routeHeaders, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => {
          let pod = "";
          try {
            pod = (JSON.parse(body) as { pod: string }).pod;
          } catch {}
          resolve({ status: res.statusCode ?? 0, pod });
        });
      },
    );
    req.on("error", () => resolve({ status: 0, pod: "" }));
    req.end();
  });
}

/** The readiness probe kubelet runs against a queue-proxy's serving port (kube-probe/ user agent). */
function queueProbe(address: string): Promise<number> {
  const [host, port] = address.split(":");
  return new Promise((resolve) => {
    const req = http.request(
      {
        host,
        port,
        path: "/",
        headers: {
          [Header.networkProbe]: ProbeValue.queue,
          [Header.userAgent]: `${UserAgent.kubeletPrefix}thaw`,
        },
        agent: false,
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", () => resolve(0));
    req.end();
  });
}

describe("scale-down through the activator to real queue-proxies (Knative's drain: quiet period, then finish)", () => {
  it("2 -> 1: the draining pod's exchanges finish, it fails readiness, and nothing sent after the endpoint update reaches it", async () => {
    const all = {
      slow: [] as Exchange<Awaited<ReturnType<typeof slowRequest>["done"]>>[],
      sse: [] as ReturnType<typeof sseStream>[],
      ws: [] as ReturnType<typeof wsSession>[],
    };
    const pods = scaler.pods(rev).map((p) => p.name);
    const covered = () => {
      const seen = arrivals(log);
      for (const e of all.slow) e.pod ??= seen.find((a) => a.id === e.id)?.pod;
      return pods.every((p) => [all.slow, all.sse, all.ws].every((xs) => xs.some((e) => e.pod === p)));
    };
    for (let round = 0; round < 8 && !covered(); round++) {
      for (let k = 0; k < 2; k++) {
        const id = `${round}-${k}`;
        all.slow.push(
          slowRequest(base, "drain.localhost", `slow-${id}`, STREAM_MS, SLOW_BYTES, routeHeaders),
        );
        all.sse.push(sseStream(base, "drain.localhost", `sse-${id}`, N, EVERY_MS, routeHeaders));
        all.ws.push(wsSession(base, "drain.localhost", `ws-${id}`, N, EVERY_MS, routeHeaders));
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(covered(), "both pods serve a slow request, an SSE stream and a websocket").toBe(true);

    const before = new Map(scaler.pods(rev).map((p) => [p.name, p.address]));
    void scaler.scale(rev, 1);
    await until(() => scaler.pods(rev).length === 1, 20_000, "one pod to be stopping");
    const stopAt = Date.now();
    const survivor = scaler.pods(rev)[0]?.name as string;
    const draining = pods.find((p) => p !== survivor) as string;
    // The premise: each kind of exchange is still open on the draining pod as its drain begins.
    for (const [kind, xs] of Object.entries(all)) {
      const live = (xs as Exchange<unknown>[]).filter((e) => e.pod === draining && !e.finished);
      expect(live.length, `${kind} exchanges still open on ${draining} at SIGTERM`).toBeGreaterThan(0);
    }
    // Knative: readiness fails as soon as the queue-proxy has the SIGTERM, while it still serves.
    const unready = await until(
      async () => (await queueProbe(before.get(draining) as string)) === 503,
      2000,
      "the draining queue-proxy to fail its readiness probe",
    );
    // Requests all through the quiet period: before the endpoint update some may land on the draining pod
    // (and must succeed); after it, none may.
    const sent: { at: number; id: string; r: Promise<{ status: number; pod: string }> }[] = [];
    for (let i = 0; Date.now() - stopAt < QUIET_MS - 500 && i < 200; i++) {
      const id = `new-${i}`;
      sent.push({ at: Date.now(), id, r: get(`/new?id=${id}`) });
      await new Promise((r) => setTimeout(r, 50));
    }
    const answers = await Promise.all(sent.map((s) => s.r));
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(lastRemovalDeliveredAt).toBeGreaterThan(0);
    const afterUpdate = new Set(sent.filter((s) => s.at > lastRemovalDeliveredAt).map((s) => s.id));
    expect(afterUpdate.size).toBeGreaterThan(0);
    const atDraining = arrivals(log).filter((a) => a.pod === draining && a.id.startsWith("new-"));
    expect(atDraining.filter((a) => afterUpdate.has(a.id))).toEqual([]);

    const numbers = Array.from({ length: N }, (_, i) => String(i));
    const echoes = Array.from({ length: N }, (_, i) => `echo m${i}`);
    const on = <T>(xs: Exchange<T>[]) => Promise.all(xs.filter((e) => e.pod === draining).map((e) => e.done));
    for (const r of await on(all.slow)) expect(r).toEqual({ status: 200, bytes: SLOW_BYTES, pod: draining });
    for (const r of await on(all.sse)) expect(r).toEqual({ status: 200, data: numbers, ended: true });
    for (const r of await on(all.ws)) expect(r).toEqual({ echoes, closeCode: 1000 });
    // Quiet period, then the exchanges' remaining time; the pod is gone well inside the kill grace.
    await until(() => scaler.pids().length === 2, 20_000, "the drained pod to exit");
    const onDraining = [all.slow, all.sse, all.ws].flat().filter((e) => e.pod === draining).length;
    printFigures("drain/activator-queue-proxy-2-to-1", {
      onDrainingPod: onDraining,
      finishedWhole: onDraining,
      sentDuringQuietPeriod: sent.length,
      answered200: answers.filter((a) => a.status === 200).length,
      reachedDrainingPodBeforeEndpointUpdate: atDraining.length,
      sentAfterEndpointUpdate: afterUpdate.size,
      reachedDrainingPodAfterEndpointUpdate: 0,
      unreadyAfterSigtermMs: unready,
      goneAfterSigtermMs: Date.now() - stopAt,
    });
    console.log(
      `activator drain 2->1: ${sent.length} requests during the ${QUIET_MS} ms quiet period, all 200; ` +
        `${atDraining.length} reached the draining pod before the endpoint update, 0 of ${afterUpdate.size} after it; ` +
        `unready ${unready} ms after SIGTERM, pod gone ${Date.now() - stopAt} ms after SIGTERM`,
    );
  }, 90_000);
});
