import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HookService, startIngressHook } from "../src/node/service.js";
import { type HttpAnswer, httpGet } from "./support/http-get.js";
import {
  freePort,
  HOOK_TOKEN,
  type NginxProcess,
  requireNginx,
  startNginxForHook,
} from "./support/nginx-process.js";

// nginx (infra/nginx/nginx.conf) -> the hook service -> the real `thaw-activator` bin as a child process,
// SIGKILLed and started again on the same port. While it is gone, every request the hook sees is answered
// at once: 200 when a pod was last seen ready, else 503 + Retry-After (never a hang, never a 502). Once it is
// back, the hook's watch reconnects and cold revisions wake again.
const TIMEOUT_MS = 1500;
const TOKEN = "activator-token-for-restart";
const activatorBin = fileURLToPath(new URL("../../activator/bin/thaw-activator.mjs", import.meta.url));
const backendScript = fileURLToPath(new URL("./support/slow-backend.mjs", import.meta.url));

const children: ChildProcess[] = [];
let nginx: NginxProcess;
let hook: HookService;
let port = 0;
let activatorPort = 0;
let revisions = "";
let connects = 0;
let laterPort = 0;
let hello = 0;

/** A pod stand-in (answers the queue probe) listening on `p` from now on. */
function startBackend(p: number): void {
  children.push(
    spawn(process.execPath, [backendScript], {
      env: { ...process.env, PORT: String(p), STARTUP_DELAY_MS: "0" },
      stdio: "ignore",
    }),
  );
}
let losses = 0;

/** Starts the activator bin on `activatorPort` and resolves once it logged that it listens. */
async function startActivatorBin(): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [activatorBin, "--host", "127.0.0.1", "--port", String(activatorPort), "--token", TOKEN],
    { env: { ...process.env, THAW_REVISIONS: revisions }, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  let out = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`activator did not start: ${out}`)), 20_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('"listening"')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`activator exited ${code}: ${out}`));
    });
  });
  return child;
}

/** Polls `cond` every 50 ms for at most `ms`. */
async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  for (let i = 0; i < 100_000 && Date.now() < end; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/** A GET that records how long it took; a transport error counts as status 0. */
async function timed(host: string, path: string): Promise<HttpAnswer & { ms: number }> {
  const t0 = performance.now();
  const a = await httpGet(port, host, path, {}, 15_000).catch(
    (err: Error): HttpAnswer => ({ status: 0, headers: {}, body: err.message }),
  );
  return { ...a, ms: performance.now() - t0 };
}

/** How many answers had each status. */
function byStatus(xs: readonly { status: number }[]): Record<number, number> {
  const m: Record<number, number> = {};
  for (const a of xs) m[a.status] = (m[a.status] ?? 0) + 1;
  return m;
}

beforeAll(async () => {
  requireNginx();
  hello = await freePort();
  laterPort = await freePort();
  startBackend(hello);
  revisions = JSON.stringify([
    { namespace: "default", name: "hello", endpoints: [`127.0.0.1:${hello}`] },
    { namespace: "default", name: "later", endpoints: [`127.0.0.1:${laterPort}`] },
  ]);
  activatorPort = await freePort();
  await startActivatorBin();
  hook = await startIngressHook({
    activationTimeoutMs: TIMEOUT_MS,
    token: HOOK_TOKEN,
    port: 0,
    activatorUrl: `http://127.0.0.1:${activatorPort}`,
    activatorToken: TOKEN,
    services: [
      { name: "hello", namespace: "default", hosts: ["hello.localhost"] },
      { name: "later", namespace: "default", hosts: ["later.localhost"] },
    ],
    onWatchState: (s) => {
      if (s === "connected") connects++;
      else losses++;
    },
  });
  await until(() => connects === 1, 10_000, "the hook's watch to connect");
  ({ nginx, port } = await startNginxForHook(hook.port, activatorPort));
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  await hook?.close();
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

describe("the activator SIGKILLed and restarted behind nginx + hook (real processes)", () => {
  it("answers 200 or 503 + Retry-After while it is down (no hang, no 502), then recovers", async () => {
    const first = await timed("hello.localhost", "/before");
    expect(first.status).toBe(200);

    const activator = children.at(-1) as ChildProcess;
    activator.kill("SIGKILL");
    await until(() => losses >= 1, 10_000, "the hook to see the watch drop");
    // Past the warm entry's TTL (2 s once the watch that vouched for it dropped): hello is no longer warm
    // to the hook, yet its pod is as ready as before. It must go on being served from that pod.
    await until(
      () => hook.hook.cache.get("default/hello", hook.hook.clock.now()) === undefined,
      10_000,
      "hello's entry to go stale",
    );
    // `later` gets its pod only now: no activator saw it ready, so the hook cannot know it is warm.
    startBackend(laterPort);

    // While it is down: a revision that was never ready (it needs the activator) and the warm one.
    const down = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        timed(i % 2 ? "later.localhost" : "hello.localhost", `/down/${i}`),
      ),
    );
    process.stderr.write(`activator down: ${JSON.stringify(byStatus(down))}\n`);
    const wrong = down.filter(
      (a) => !(a.status === 200 || (a.status === 503 && Number(a.headers["retry-after"]) >= 1)),
    );
    expect(wrong.map((a) => `${a.status} ${a.headers["retry-after"] ?? "-"} ${a.body}`)).toEqual([]);
    // The revision last seen ready is served from its pod whatever its entry's age. nginx's auth cache
    // hides the hook's answer here (it keeps serving its last allow while the refresh fails), so the hook
    // is asked as a proxy without that cache (Envoy, Traefik, Caddy) asks it: before, 503 ERR_UPSTREAM.
    const warm = down.filter((_, i) => i % 2 === 0);
    expect(warm.map((a) => a.status)).toEqual(warm.map(() => 200));
    const asked = await hook.hook.decide({
      method: "GET",
      host: "hello.localhost",
      path: "/asked",
      headers: new Headers(),
    });
    expect(asked).toMatchObject({ kind: "allow", upstream: `127.0.0.1:${hello}`, via: "pod", warm: false });
    // The cold revision cannot be served without the activator: it is refused with the cause, not held.
    const cold = down.filter((_, i) => i % 2 === 1);
    expect(cold.every((a) => a.status === 503)).toBe(true);
    expect(JSON.parse(cold[0]?.body ?? "{}")).toMatchObject({ error: { code: "ERR_UPSTREAM" } });
    // Answered at once, not at a deadline: well inside the activation timeout plus slack for a loaded box.
    expect(Math.max(...down.map((a) => a.ms))).toBeLessThan(TIMEOUT_MS + 3000);

    await startActivatorBin();
    await until(() => connects >= 2, 20_000, "the hook's watch to reconnect");
    const after = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        timed(i % 2 ? "later.localhost" : "hello.localhost", `/after/${i}`),
      ),
    );
    process.stderr.write(`activator back: ${JSON.stringify(byStatus(after))}\n`);
    expect(after.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.body}`)).toEqual([]);
  }, 90_000);
});
