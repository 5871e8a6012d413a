/**
 * Scale-down safety through `thaw up`'s stack (issue 16, ask 5): a long request, an SSE stream and a
 * websocket in flight on a pod the local scaler stops (2 -> 1, then 1 -> 0) all finish, every byte and a
 * clean close; requests sent while it drains land on the other pod or are held, never on the draining one
 * (counted at the pod, from the app's own arrival log); the drained pod's processes are gone in bounded time.
 * The pods are real processes (drain-app.mjs behind a real thaw-queue-proxy). The scale steps are the
 * autoscaler's (its min/max-scale changed), except 1 -> 0, which the autoscaler never decides while
 * requests are in flight: there the revision is taken from the autoscaler and the local scaler told 0.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PodInfo, policyFor } from "@thaw/autoscaler-service";
import { printFigures } from "@thaw/bench-kit/overload";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arrivals, type Exchange, slowRequest, sseStream, wsSession } from "./support/drain-streams.js";
import { request, stackFrom, untilAnswered } from "./support/stack-harness.js";
import { until } from "./support/up-process.js";

const rev = { namespace: "default", name: "drain" };
const HOST = "drain.localhost";
const drainApp = join(import.meta.dirname, "support/drain-app.mjs");
/** Each exchange lasts about this long, so it is still running when the drain starts and runs through it. */
const STREAM_MS = 6000;
const SSE_EVERY_MS = 200;
const SSE_EVENTS = STREAM_MS / SSE_EVERY_MS;
const WS_MESSAGES = SSE_EVENTS;
const SLOW_BYTES = 256 * 1024;

const dir = mkdtempSync(join(tmpdir(), "thaw-drain-"));
const log = join(dir, "arrivals.jsonl");
let stack: Awaited<ReturnType<typeof stackFrom>>["stack"];
let dispose: () => Promise<void>;

const policy = (min: number, max: number) => {
  const p = policyFor({ autoscaling: { "min-scale": min, "max-scale": max }, containerConcurrency: 0 });
  if (!p.ok) throw new Error(JSON.stringify(p.issues));
  return p.value;
};
const readyPods = (): PodInfo[] => stack.scaler.pods(rev).filter((p) => p.ready);

beforeAll(async () => {
  ({ stack, dispose } = await stackFrom([
    "services:",
    "  - name: drain",
    `    hosts: [${HOST}]`,
    "    timeoutSeconds: 30",
    "    readinessProbe: { httpGet: { path: /healthz } }",
    "    autoscaling: { min-scale: 2, max-scale: 2 }",
    "    run:",
    `      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(drainApp)}]`,
    `      env: { DRAIN_LOG: ${JSON.stringify(log)} }`,
  ]));
  await until(() => readyPods().length === 2, 30_000, "two ready pods");
  await untilAnswered(stack.url, { host: HOST }, "the gateway to answer");
}, 60_000);

afterAll(async () => {
  await dispose?.();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** The three long exchanges, opened until each pod in `pods` serves at least one of each kind (bounded). */
interface Open {
  slow: Exchange<Awaited<ReturnType<typeof slowRequest>["done"]>>[];
  sse: ReturnType<typeof sseStream>[];
  ws: ReturnType<typeof wsSession>[];
}

async function openOnEvery(pods: string[], tag: string): Promise<Open> {
  const open: Open = { slow: [], sse: [], ws: [] };
  const covered = () => {
    const seen = arrivals(log);
    for (const ex of open.slow) ex.pod ??= seen.find((a) => a.id === ex.id)?.pod;
    return pods.every(
      (p) =>
        open.slow.some((e) => e.pod === p) &&
        open.sse.some((e) => e.pod === p) &&
        open.ws.some((e) => e.pod === p),
    );
  };
  for (let round = 0; round < 8 && !covered(); round++) {
    for (let k = 0; k < pods.length; k++) {
      const id = `${tag}-${round}-${k}`;
      open.slow.push(slowRequest(stack.url, HOST, `slow-${id}`, STREAM_MS, SLOW_BYTES));
      open.sse.push(sseStream(stack.url, HOST, `sse-${id}`, SSE_EVENTS, SSE_EVERY_MS));
      open.ws.push(wsSession(stack.url, HOST, `ws-${id}`, WS_MESSAGES, SSE_EVERY_MS));
    }
    await until(
      () => [...open.sse, ...open.ws].every((e) => e.pod !== undefined) && arrivals(log).length > 0,
      10_000,
      "every stream to name its pod",
    ).catch(() => 0);
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(covered(), `each of ${pods.join(", ")} serves a slow request, an SSE stream and a websocket`).toBe(
    true,
  );
  return open;
}

/** The premise: each kind of exchange is still open on `pod` as its drain begins. */
function expectOpenOn(open: Open, pod: string): void {
  for (const [kind, xs] of Object.entries(open)) {
    const live = (xs as Exchange<unknown>[]).filter((e) => e.pod === pod && !e.finished);
    expect(live.length, `${kind} exchanges still open on ${pod} when its drain began`).toBeGreaterThan(0);
  }
}

/** Every exchange of `open` on `pod` finished whole: all bytes, all events, all echoes, clean ends. */
async function expectAllWhole(open: Open, pod: string): Promise<number> {
  const mine = <T>(xs: Exchange<T>[]) => xs.filter((e) => e.pod === pod);
  const slow = await Promise.all(mine(open.slow).map((e) => e.done));
  const sse = await Promise.all(mine(open.sse).map((e) => e.done));
  const ws = await Promise.all(mine(open.ws).map((e) => e.done));
  for (const r of slow) expect(r).toEqual({ status: 200, bytes: SLOW_BYTES, pod });
  const numbers = Array.from({ length: SSE_EVENTS }, (_, i) => String(i));
  for (const r of sse) expect(r).toEqual({ status: 200, data: numbers, ended: true });
  const echoes = Array.from({ length: WS_MESSAGES }, (_, i) => `echo m${i}`);
  for (const r of ws) expect(r).toEqual({ echoes, closeCode: 1000 });
  return slow.length + sse.length + ws.length;
}

describe("scale-down through thaw up: what is in flight on a draining pod finishes, nothing new reaches it", () => {
  it("2 -> 1: the stopped pod's long request, SSE stream and websocket finish; new requests go to the other pod", async () => {
    const pods = readyPods().map((p) => p.name);
    const open = await openOnEvery(pods, "a");
    stack.service.updatePolicy(rev, policy(1, 1));
    await until(() => stack.scaler.pods(rev).length === 1, 20_000, "one pod to be stopping");
    const drainStart = Date.now();
    const survivor = stack.scaler.pods(rev)[0]?.name as string;
    const draining = pods.find((p) => p !== survivor) as string;
    expectOpenOn(open, draining);
    // New requests while the other drains, a few at a time over its drain.
    const fresh: { status: number; pod: string }[] = [];
    for (let i = 0; i < 30; i++) {
      const r = await request(stack.url, { path: `/new?id=new-a-${i}`, headers: { host: HOST } });
      fresh.push({
        status: r.status,
        pod: r.status === 200 ? (JSON.parse(r.body) as { pod: string }).pod : "",
      });
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(
      fresh.every((f) => f.status === 200 && f.pod === survivor),
      JSON.stringify(fresh),
    ).toBe(true);
    const finished = await expectAllWhole(open, draining);
    await expectAllWhole(open, survivor);
    // At the draining pod: none of the new requests arrived there.
    const late = arrivals(log).filter((a) => a.pod === draining && a.id.startsWith("new-"));
    expect(late).toEqual([]);
    // The drained pod's two processes go once its last exchange ended (the bound is far inside the kill grace).
    const goneMs = await until(() => stack.scaler.pids().length === 2, 15_000, "the drained pod to exit");
    printFigures("drain/thaw-up-2-to-1", {
      onDrainingPod: finished,
      finishedWhole: finished,
      sentWhileDraining: fresh.length,
      answered200: fresh.filter((f) => f.status === 200).length,
      reachedDrainingPod: late.length,
      goneAfterDrainStartMs: Date.now() - drainStart,
    });
    console.log(
      `drain 2->1: ${finished} exchanges on the draining pod finished whole, 30 new requests all on the other pod, ` +
        `drained pod gone ${Date.now() - drainStart} ms after the drain began (${goneMs} ms after its exchanges ended)`,
    );
  }, 90_000);

  it("1 -> 0: the last pod's exchanges finish; requests meanwhile are held, then served by a new pod", async () => {
    const last = readyPods()[0]?.name as string;
    const open = await openOnEvery([last], "b");
    stack.service.removeRevision(rev);
    void stack.scaler.scale(rev, 0);
    await until(() => stack.scaler.pods(rev).length === 0, 20_000, "the last pod to be stopping");
    expectOpenOn(open, last);
    const held = Array.from({ length: 5 }, (_, i) =>
      request(stack.url, { path: `/held?id=held-b-${i}`, headers: { host: HOST } }),
    );
    const finished = await expectAllWhole(open, last);
    await until(() => stack.scaler.pids().length === 0, 15_000, "the last pod to exit");
    // Scaling up again (the autoscaler takes the revision back at min-scale 1) releases the held requests.
    stack.service.addRevision(rev, policy(1, 1));
    const answers = await Promise.all(held);
    const served = answers.map((r) =>
      r.status === 200 ? (JSON.parse(r.body) as { pod: string }).pod : `${r.status}`,
    );
    expect(
      served.every((p) => p !== last && p.startsWith("drain-")),
      JSON.stringify(served),
    ).toBe(true);
    const heldAtLast = arrivals(log).filter((a) => a.pod === last && a.id.startsWith("held-"));
    expect(heldAtLast).toEqual([]);
    printFigures("drain/thaw-up-1-to-0", {
      onDrainingPod: finished,
      finishedWhole: finished,
      heldWhileDraining: held.length,
      answered200: answers.filter((r) => r.status === 200).length,
      reachedDrainingPod: heldAtLast.length,
    });
    console.log(
      `drain 1->0: ${finished} exchanges finished whole, 5 requests held while draining, then served by ${served[0]}`,
    );
  }, 90_000);
});
