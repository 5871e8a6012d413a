import { coldBurst, figuresLine } from "@thaw/bench-kit/cold-burst";
import type { ColdStartRecord } from "@thaw/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stack } from "../src/stack.js";
import { type PodmanEngine, startPodman } from "./support/podman-engine.js";
import { request, stackFrom } from "./support/stack-harness.js";
import { startUp, until, untilReadyPods } from "./support/up-process.js";

/** A `container:` service on the test engine's socket (`service`: more keys of it, indented 4). */
function config(name: string, port: number, socket: string, service: string[] = []): string[] {
  return [
    "autoscaler:",
    "  stable-window: 6s",
    "  scale-to-zero-grace-period: 1s",
    "drain: { quietPeriod: 100ms }",
    "services:",
    "  - name: web",
    "    hosts: [web.localhost]",
    ...service,
    `    container: { name: ${name}, port: ${port}, socket: ${socket} }`,
  ];
}

/** Every container on the engine: name → id. */
async function containers(engine: PodmanEngine): Promise<Map<string, string>> {
  const ps = await engine.podman(["ps", "-a", "--format", "{{.Names}} {{.ID}}"]);
  return new Map(
    ps
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => {
        const [name, ...rest] = l.split(" ");
        return [name as string, rest.join(" ")];
      }),
  );
}

/**
 * Waits until web1 and its copies are back at zero: web1 stopped, every copy (web1-2, web1-3) removed.
 * Each copy is stopped, then removed: the wait is for the removal, not the stop.
 */
async function untilBackToZero(engine: PodmanEngine): Promise<void> {
  await until(
    async () =>
      (await state(engine, "web1")) !== "running" &&
      [...(await containers(engine)).keys()].every((n) => !/^web1-\d$/.test(n) || n === "web1-9"),
    60_000,
    "back to zero: web1 stopped, its copies removed",
  );
}

/** The cold-start records `thaw up` has finished, oldest first. */
function coldStarts(stack: Stack): ColdStartRecord[] {
  return stack.feed.replay().flatMap((e) => (e.type === "coldstart" ? [e.data] : []));
}

async function state(engine: PodmanEngine, name: string): Promise<string> {
  return (await engine.podman(["inspect", "--format", "{{.State.Status}}", name])).trim();
}

describe("thaw up with a container: backend (real podman API service)", () => {
  let engine: PodmanEngine;
  beforeAll(async () => {
    engine = await startPodman();
    // Host networking: the test touches no network but loopback (see docs/containers.md).
    await engine.podman([
      "create",
      "--name",
      "web1",
      "--network",
      "host",
      "-e",
      "PORT=18931",
      "localhost/thaw-test/httpd:1",
    ]);
    await engine.podman([
      "create",
      "--name",
      "other",
      "--network",
      "host",
      "-e",
      "PORT=18932",
      "localhost/thaw-test/httpd:1",
    ]);
    // A bystander that looks like a replica of web1 (its name, a thaw.replica-of label) but is not one
    // Thaw made: it runs, and must be left running.
    await engine.podman([
      "run",
      "-d",
      "--name",
      "web1-9",
      "--network",
      "host",
      "--label",
      "thaw.replica-of=web1",
      "-e",
      "PORT=18939",
      "localhost/thaw-test/httpd:1",
    ]);
  }, 120_000);
  afterAll(async () => {
    await engine?.stop();
  }, 60_000);

  it("a cold request starts the stopped container and gets 200; idle, it is stopped; others untouched", async () => {
    const { stack, dispose } = await stackFrom(config("web1", 18931, engine.socket));
    try {
      expect(await state(engine, "web1")).not.toBe("running");
      const t0 = performance.now();
      const r = await request(stack.url, { headers: { host: "web.localhost" } });
      const ms = performance.now() - t0;
      expect(r.status).toBe(200);
      expect(r.body).toContain("hello from a container");
      expect(await state(engine, "web1")).toBe("running");
      console.log(
        `THAW-FIGURES containers cold request (podman start + queue-proxy ready + answer) ${ms.toFixed(0)} ms`,
      );
      // The cold start's record (dashboard, logs, metric) has the container's start in it.
      await until(() => coldStarts(stack).length > 0, 10_000, "the cold-start record");
      const record = coldStarts(stack)[0] as ColdStartRecord;
      const at = (p: string) => record.phases.find((x) => x.phase === p)?.at as number;
      const started = record.moments?.containerStarted as number;
      expect(started).toBeGreaterThanOrEqual(at("podStarted"));
      console.log(
        `THAW-FIGURES containers cold-start phases: queued->pod ${at("podStarted") - record.startedAt} ms, ` +
          `engine start ${started - at("podStarted")} ms, start->ready ${at("firstReady") - started} ms, ` +
          `ready->first byte ${at("firstByte") - at("firstReady")} ms, total ${record.totalMs} ms`,
      );
      await until(async () => (await state(engine, "web1")) !== "running", 60_000, "web1 stopped after idle");
      expect(await state(engine, "other")).toBe("created");
    } finally {
      await dispose();
    }
  }, 120_000);

  it("0 -> 3 -> 0 under a burst: replicas web1-2 and web1-3 made from web1, 0 lost, removed after; bystanders untouched", async () => {
    const before = await containers(engine);
    // The attach processes say how long the engine took to create and start each copy.
    const engineMs: Record<string, number[]> = { created: [], started: [] };
    const { stack, dispose } = await stackFrom(
      config("web1", 18931, engine.socket, [
        "    containerConcurrency: 1",
        "    autoscaling: { max-scale: 3 }",
        "    timeoutSeconds: 30",
      ]),
      {
        onPodOutput: (_rev, _pod, _c, line) => {
          const m = /^thaw-container: (created|started) \S+ in (\d+) ms/.exec(line);
          if (m) engineMs[m[1] as string]?.push(Number(m[2]));
        },
      },
    );
    try {
      const r = await coldBurst({
        port: Number(new URL(stack.url).port),
        host: "web.localhost",
        n: 30,
        revisionsUrl: `${stack.url}/_thaw/api/revisions`,
        name: "web",
        path: "/cgi-bin/slow?",
      });
      console.log(figuresLine("containers burst 30 at zero, CC 1, max-scale 3, 0.3 s each", r));
      console.log(
        `THAW-FIGURES containers engine calls: create ${engineMs.created?.join(", ")} ms; start ${engineMs.started?.join(", ")} ms`,
      );
      expect(r.statuses.filter((st) => st !== 200)).toEqual([]);
      expect(r.maxDesired).toBe(3);
      expect(r.timeline.some(([, , ready]) => ready === 3)).toBe(true);
      await untilBackToZero(engine);
      const after = await containers(engine);
      expect([...after.keys()].sort()).toEqual(["other", "web1", "web1-9"]);
      expect(after.get("web1-9")).toBe(before.get("web1-9"));
      expect(await state(engine, "web1-9")).toBe("running");
      expect(after.get("other")).toBe(before.get("other"));
    } finally {
      await dispose();
    }
  }, 120_000);

  it("thaw up killed with 3 replicas running: the next one adopts all 3 (same containers, not restarted) and ends them when idle", async () => {
    const scaled = config("web1", 18931, engine.socket, ["    autoscaling: { min-scale: 3, max-scale: 3 }"]);
    const run = await startUp("thaw-containers", ["listen: 127.0.0.1:0", ...scaled]);
    try {
      await untilReadyPods(run.up.url, 3, 60_000);
    } finally {
      // SIGKILL: no orderly stop, so the containers outlive it (its attach processes die with it).
      await run.dispose();
    }
    const running = async () =>
      (await engine.podman(["ps", "--format", "{{.Names}}"])).trim().split("\n").filter(Boolean);
    expect((await running()).sort()).toEqual(["web1", "web1-2", "web1-3", "web1-9"]);
    // Which container, started when: adopted means both unchanged.
    const started = async () =>
      (await engine.podman(["ps", "--format", "{{.Names}} {{.ID}} {{.StartedAt}}"]))
        .trim()
        .split("\n")
        .sort();
    const before = await started();
    const t0 = Date.now();
    const { stack, dispose } = await stackFrom(
      config("web1", 18931, engine.socket, ["    autoscaling: { max-scale: 3 }"]),
    );
    const rev = { namespace: "default", name: "web" };
    try {
      expect(stack.scaler.pods(rev).length).toBe(3);
      await until(
        () => stack.scaler.pods(rev).filter((p) => p.ready).length === 3,
        30_000,
        "3 adopted, ready",
      );
      expect((await request(stack.url, { headers: { host: "web.localhost" } })).status).toBe(200);
      expect(await started()).toEqual(before);
      await untilBackToZero(engine);
      expect([...(await containers(engine)).keys()].sort()).toEqual(["other", "web1", "web1-9"]);
      // Idle from the start, yet kept for a stable window (6 s) first: the adopted count was the start.
      const scales = stack.feed.replay().flatMap((e) => (e.type === "scale" ? [e.data] : []));
      expect(scales.map((e) => [e.from > e.to, e.t - t0 >= 6000])).toEqual(scales.map(() => [true, true]));
    } finally {
      await dispose();
    }
  }, 120_000);

  it("restarted with the container running, thaw up adopts it (no second start) and answers", async () => {
    await engine.podman(["start", "web1"]);
    const { stack, dispose } = await stackFrom(config("web1", 18931, engine.socket));
    try {
      expect(stack.scaler.pods({ namespace: "default", name: "web" }).length).toBe(1);
      const r = await request(stack.url, { headers: { host: "web.localhost" } });
      expect(r.status).toBe(200);
      const ps = await engine.podman(["ps", "-a", "--format", "{{.Names}}"]);
      expect(ps.trim().split("\n").sort()).toEqual(["other", "web1", "web1-9"]);
    } finally {
      await dispose();
    }
    expect(await state(engine, "web1")).not.toBe("running");
  }, 120_000);

  it("a container killed by someone else is noticed: its pod is replaced and requests succeed again", async () => {
    const lines: string[] = [];
    // min-scale 1: the replacement is wanted whatever the traffic. Without it, a replacement slower than
    // the 6 s stable window (a loaded machine) met a scale to zero, and the container read `exited`.
    const { stack, dispose } = await stackFrom(
      config("web1", 18931, engine.socket, ["    autoscaling: { min-scale: 1 }"]),
      {
        onPodOutput: (_rev, pod, _c, line) => lines.push(`${pod}: ${line}`),
      },
    );
    const rev = { namespace: "default", name: "web" };
    try {
      expect((await request(stack.url, { headers: { host: "web.localhost" } })).status).toBe(200);
      const before = stack.scaler.pods(rev)[0]?.name;
      await engine.podman(["kill", "web1"]);
      // Said in thaw up's output, on the pod's own line.
      await until(
        () =>
          lines.some((l) => l.startsWith(`${before}: thaw-container: container web1 stopped outside thaw`)),
        10_000,
        "the kill reported",
      );
      await until(
        () => stack.scaler.pods(rev).some((p) => p.ready && p.name !== before),
        30_000,
        "a new pod",
      );
      expect((await request(stack.url, { headers: { host: "web.localhost" } })).status).toBe(200);
      expect(await state(engine, "web1"), lines.join("\n")).toBe("running");
      // Said on the dashboard and thaw up's terminal (a problem record), then cleared once replaced.
      const problems = stack.feed.replay().flatMap((e) => (e.type === "problem" ? [e.data] : []));
      expect(problems[0]?.message).toMatch(
        new RegExp(
          `^pod ${before} ended on its own after it was ready .*container web1 stopped outside thaw`,
        ),
      );
      await until(
        () => stack.feed.replay().some((e) => e.type === "problem" && e.data.message === null),
        10_000,
        "the problem cleared",
      );
    } finally {
      await dispose();
    }
  }, 120_000);

  it("a replica killed under load: every request answered, none lost; the killed one is replaced", async () => {
    const { stack, dispose } = await stackFrom(
      config("web1", 18931, engine.socket, ["    autoscaling: { min-scale: 2, max-scale: 2 }"]),
    );
    const rev = { namespace: "default", name: "web" };
    const outcomes: { status: number; after: boolean; error?: string }[] = [];
    let replaced = false;
    let stop = false;
    try {
      await until(() => stack.scaler.pods(rev).filter((p) => p.ready).length === 2, 30_000, "2 ready");
      const first = new Set(stack.scaler.pods(rev).map((p) => p.name));
      // 4 clients in a loop, bounded in count and time; the kill comes once each has been served.
      const t0 = Date.now();
      const client = async () => {
        for (let i = 0; i < 500 && !stop && Date.now() - t0 < 30_000; i++) {
          const after = replaced;
          const r = await request(stack.url, { path: "/cgi-bin/slow?", headers: { host: "web.localhost" } })
            .then((x) => ({ status: x.status, after }))
            .catch((e: Error) => ({ status: 0, after, error: e.message }));
          outcomes.push(r);
        }
      };
      const clients = Array.from({ length: 4 }, client);
      await until(() => outcomes.length >= 8, 20_000, "load running");
      await engine.podman(["kill", "web1"]);
      await until(
        () => stack.scaler.pods(rev).some((p) => p.ready && !first.has(p.name)),
        30_000,
        "the killed replica replaced",
      );
      replaced = true;
      const served = outcomes.length;
      await until(() => outcomes.length >= served + 8, 20_000, "load after the replacement");
      stop = true;
      await Promise.all(clients);
      const failed = outcomes.filter((o) => o.status !== 200);
      const replayed = /thaw_activator_requests_replayed_total\{[^}]*\} (\d+)/.exec(stack.metrics.render());
      console.log(
        `THAW-FIGURES containers kill under load: ${outcomes.length} requests, ${failed.length} not 200 ` +
          `(${failed.map((f) => f.status).join(", ")}), replayed ${replayed?.[1] ?? 0}`,
      );
      expect(failed).toEqual([]);
      // Requests were at the killed replica (0.3 s each): they went again, to the other one.
      expect(Number(replayed?.[1] ?? 0)).toBeGreaterThan(0);
      expect(outcomes.filter((o) => o.after).length).toBeGreaterThanOrEqual(8);
    } finally {
      stop = true;
      await dispose();
    }
  }, 120_000);

  it("a missing container and a missing socket are refused with the field and the fix", async () => {
    await expect(stackFrom(config("nope", 18931, engine.socket))).rejects.toThrow(
      /services\[0\]\.container\.name: no container named nope .*create it first/,
    );
    await expect(stackFrom(config("web1", 18931, `${engine.dir}/none.sock`))).rejects.toThrow(
      /services\[0\]\.container\.socket: .*no container engine socket .*podman system service/,
    );
  }, 60_000);
});
