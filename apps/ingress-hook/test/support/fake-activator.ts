import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ActivateResponse, EndpointsEvent } from "@thaw/protocol";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";

/** One revision the fake activator knows: how long its backend takes to listen ("never" = never). */
export interface FakeRevision {
  namespace: string;
  name: string;
  startupDelayMs: number | "never";
  /** The port its backend listens on (any free one when unset). */
  port?: number;
}

/**
 * A fake-but-real activator implementing the CONTRACTS.md API: POST /v1/activate starts the revision's
 * backend as a child process on the first call (single flight), waits for it to listen or for timeoutMs,
 * and GET /v1/watch pushes endpoint changes. Counts every request it gets.
 */
export class FakeActivator {
  readonly counts = { activate: 0, watch: 0, other: 0 };
  readonly app = new Hono();
  readonly #revisions = new Map<string, FakeRevision>();
  readonly #endpoints = new Map<string, string[]>();
  readonly #flights = new Map<string, Promise<string>>();
  readonly #children: ChildProcess[] = [];
  readonly #watchers = new Set<(ev: EndpointsEvent) => void>();
  starts = 0;

  constructor(revisions: FakeRevision[], token?: string) {
    for (const r of revisions) this.#revisions.set(`${r.namespace}/${r.name}`, r);
    this.app.use("*", async (c, next) => {
      if (c.req.path === "/v1/activate") this.counts.activate++;
      else if (c.req.path === "/v1/watch") this.counts.watch++;
      else this.counts.other++;
      if (token && c.req.header("authorization") !== `Bearer ${token}`) {
        return c.json({ error: { code: "ERR_UNAUTHORIZED", message: "bad token" } }, 401);
      }
      await next();
    });
    this.app.post("/v1/activate", async (c) => {
      const body = (await c.req.json()) as { namespace?: unknown; name?: unknown; timeoutMs?: unknown };
      if (
        typeof body.namespace !== "string" ||
        typeof body.name !== "string" ||
        typeof body.timeoutMs !== "number"
      ) {
        return c.json(
          { error: { code: "ERR_BAD_REQUEST", message: "namespace, name, timeoutMs required" } },
          400,
        );
      }
      const key = `${body.namespace}/${body.name}`;
      const rev = this.#revisions.get(key);
      if (!rev)
        return c.json({ error: { code: "ERR_UNKNOWN_REVISION", message: `unknown revision ${key}` } }, 404);
      const t0 = performance.now();
      const ready = this.#endpoints.get(key);
      if (ready && ready.length > 0) {
        const ans: ActivateResponse = {
          namespace: body.namespace,
          name: body.name,
          endpoints: ready,
          coldStart: false,
          waitedMs: 0,
        };
        return c.json(ans);
      }
      const flight = this.#flights.get(key) ?? this.#start(key, rev);
      this.#flights.set(key, flight);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<"timeout">((r) => {
        timer = setTimeout(() => r("timeout"), body.timeoutMs as number);
      });
      const won = await Promise.race([flight, timeout]);
      clearTimeout(timer);
      if (won === "timeout") {
        c.header("retry-after", "2");
        return c.json(
          { error: { code: "ERR_ACTIVATION_TIMEOUT", message: `${key} not ready in time` } },
          504,
        );
      }
      const ans: ActivateResponse = {
        namespace: body.namespace,
        name: body.name,
        endpoints: [won],
        coldStart: true,
        waitedMs: Math.round(performance.now() - t0),
      };
      return c.json(ans);
    });
    this.app.get("/v1/watch", (c) =>
      streamSSE(c, async (stream) => {
        const send = (ev: EndpointsEvent) =>
          void stream.writeSSE({ event: "endpoints", data: JSON.stringify(ev) });
        for (const [key, eps] of this.#endpoints) send(this.#event(key, eps));
        this.#watchers.add(send);
        await new Promise<void>((resolve) => stream.onAbort(resolve));
        this.#watchers.delete(send);
      }),
    );
  }

  /** Forgets a revision's endpoints and tells watchers (a scale to zero). */
  scaleToZero(key: string): void {
    this.#endpoints.set(key, []);
    for (const w of this.#watchers) w(this.#event(key, []));
  }

  /** Stops every backend it started. */
  close(): void {
    for (const ch of this.#children) ch.kill("SIGTERM");
  }

  #event(key: string, endpoints: string[]): EndpointsEvent {
    const [namespace = "", name = ""] = key.split("/");
    return { namespace, name, endpoints, mode: "serve" };
  }

  #start(key: string, rev: FakeRevision): Promise<string> {
    this.starts++;
    const script = fileURLToPath(new URL("./slow-backend.mjs", import.meta.url));
    const child = spawn(process.execPath, [script], {
      env: {
        ...process.env,
        STARTUP_DELAY_MS: String(rev.startupDelayMs),
        ...(rev.port ? { PORT: String(rev.port) } : {}),
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    this.#children.push(child);
    return new Promise<string>((resolve) => {
      let buf = "";
      child.stdout?.on("data", (d: Buffer) => {
        buf += d.toString();
        const m = /listening (\d+)/.exec(buf);
        if (m) {
          const ep = `127.0.0.1:${m[1]}`;
          this.#endpoints.set(key, [ep]);
          this.#flights.delete(key);
          for (const w of this.#watchers) w(this.#event(key, [ep]));
          resolve(ep);
        }
      });
    });
  }
}
