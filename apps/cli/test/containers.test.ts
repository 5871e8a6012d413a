import { coldBurst, figuresLine } from "@thaw/bench-kit/cold-burst";
import type { ColdStartRecord } from "@thaw/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stack } from "../src/stack.js";
import { type PodmanEngine, startPodman } from "./support/podman-engine.js";
import { request, stackFrom } from "./support/stack-harness.js";
import { startUp, until } from "./support/up-process.js";

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
      await until(
        async () => (await state(engine, "web1")) !== "running" && !(await containers(engine)).has("web1-2"),
        60_000,
        "back to zero, copies removed",
      );
      const after = await containers(engine);
      expect([...after.keys()].sort()).toEqual(["other", "web1", "web1-9"]);
      expect(after.get("web1-9")).toBe(before.get("web1-9"));
      expect(await state(engine, "web1-9")).toBe("running");
      expect(after.get("other")).toBe(before.get("other"));
    } finally {
      await dispose();
    }
  }, 120_000);

  // Skipped: not yet reliable. Adoption itself works (each attach process says "adopted web1-N"), but the
  // adopted pods were not all ready within 30 s in one run, and in another a copy was no longer running
  // after thaw up was SIGKILLed; not understood yet (docs/containers.md, limits).
  it.skip("thaw up killed with 3 replicas running: the next one adopts all 3 (none duplicated) and ends them when idle", async () => {
    const scaled = config("web1", 18931, engine.socket, ["    autoscaling: { min-scale: 3, max-scale: 3 }"]);
    const run = await startUp("thaw-containers", ["listen: 127.0.0.1:0", ...scaled]);
    try {
      await until(
        async () => {
          const revs = (await (await fetch(`${run.up.url}/_thaw/api/revisions`)).json()) as {
            readyPods: number;
          }[];
          return revs[0]?.readyPods === 3;
        },
        60_000,
        "3 ready replicas",
      );
    } finally {
      // SIGKILL: no orderly stop, so the containers outlive it (its attach processes die with it).
      await run.dispose();
    }
    const running = async () =>
      (await engine.podman(["ps", "--format", "{{.Names}}"])).trim().split("\n").filter(Boolean);
    expect((await running()).sort()).toEqual(["web1", "web1-2", "web1-3", "web1-9"]);
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
      expect([...(await containers(engine)).keys()].sort()).toEqual([
        "other",
        "web1",
        "web1-2",
        "web1-3",
        "web1-9",
      ]);
      await until(async () => (await running()).length === 1, 60_000, "idle: back to zero");
      expect([...(await containers(engine)).keys()].sort()).toEqual(["other", "web1", "web1-9"]);
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
    const { stack, dispose } = await stackFrom(config("web1", 18931, engine.socket), {
      onPodOutput: (_rev, pod, _c, line) => lines.push(`${pod}: ${line}`),
    });
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
      expect(await state(engine, "web1")).toBe("running");
    } finally {
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
