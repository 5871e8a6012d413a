/** Spare mode of the real binary (THAW_QUEUE_PROXY_SPARE=1): it waits unbound for its pod's env on stdin. */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPARE_WAITING_LINE } from "../src/spare.js";
import { BIN, baseEnv, get, startBackend, until } from "./helpers.js";

type Backend = Awaited<ReturnType<typeof startBackend>>;
let backend: Backend;
beforeAll(async () => {
  backend = await startBackend();
});
afterAll(async () => {
  await backend.close();
});

/** The binary in spare mode with only PATH inherited (no pod env at all); its stdout and stderr collected. */
function spare(): {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, [BIN], {
    env: { PATH: process.env["PATH"] ?? "", THAW_QUEUE_PROXY_SPARE: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (err += d));
  const exit = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return { child, out: () => out, err: () => err, exit };
}

const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "latin1");
/** TCP sockets `pid` listens on (its socket inodes in LISTEN state in /proc/net/tcp and tcp6). */
function listening(pid: number): number {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m?.[1]) inodes.add(m[1]);
    } catch {
      // Closed while we looked.
    }
  }
  let n = 0;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const row of readFileSync(table, "latin1").split("\n").slice(1)) {
      const cols = row.trim().split(/\s+/);
      if (cols[3] === "0A" && inodes.has(cols[9] ?? "")) n++;
    }
  }
  return n;
}

describe("thaw-queue-proxy spare mode (real process)", () => {
  it("waits titled thaw-spare-qp with nothing bound, then starts on the env line and proxies", async () => {
    const s = spare();
    try {
      const pid = s.child.pid as number;
      // It says when it is warm and waiting (its supervisor holds the listening line for that).
      await until(() => s.out().includes(`${SPARE_WAITING_LINE}\n`), 10_000);
      expect(cmdline(pid)).toMatch(/^thaw-spare-qp/);
      // Waiting: it has no pod env, yet neither fails nor listens.
      expect(s.err()).toBe("");
      expect(listening(pid)).toBe(0);
      const env = baseEnv(backend.port, {
        THAW_ADMIN_PORT: "0",
        THAW_METRICS_PORT: "0",
        THAW_USER_METRICS_PORT: "0",
      });
      s.child.stdin?.write(`${JSON.stringify(env)}\n`);
      await until(() => s.err().includes("thaw-queue-proxy listening"), 10_000);
      const line = s
        .err()
        .split("\n")
        .find((l) => l.includes("listening")) as string;
      const { serving } = JSON.parse(line) as { serving: number };
      const res = await get(`http://127.0.0.1:${serving}/spare`);
      expect(res.status).toBe(200);
      expect(cmdline(pid)).toMatch(/^thaw-queue-proxy hello-00001-deployment-abc/);
      expect(listening(pid)).toBeGreaterThan(0);
    } finally {
      s.child.kill("SIGKILL");
      await s.exit;
    }
  });

  it("exits 0 when stdin closes before the env line (its supervisor is gone)", async () => {
    const s = spare();
    s.child.stdin?.end();
    expect(await s.exit).toBe(0);
    expect(s.err()).toBe("");
  });

  it("a line that is not an object of strings: exit 1 naming the field", async () => {
    const s = spare();
    s.child.stdin?.write('{"USER_PORT":8080}\n');
    expect(await s.exit).toBe(1);
    expect(s.err()).toMatch(/thaw-queue-proxy: stdin\.USER_PORT: must be a string/);
  });
});
