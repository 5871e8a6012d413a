import { createServer, get as httpGet, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { PodInfo, RevisionKey } from "@thaw/autoscaler-service";
import { parseConfigText } from "@thaw/config";
import { Header, ProbeValue } from "@thaw/protocol";
import { resolveServices } from "./config-check.js";
import { type PodScaler, startStack } from "./stack.js";

/** The warm-up's one service: its host is reachable only on the warm-up's own loopback gateway. */
const WARM_UP_CONFIG = [
  "listen: 127.0.0.1:0",
  "services:",
  "  - name: warm-up",
  "    hosts: [warm-up.thaw.internal]",
  "    run: { command: [warm-up] }",
].join("\n");

/**
 * A scaler whose one "pod" is a loopback HTTP server in this process: it answers the queue probe
 * (`K-Network-Probe: queue` → `queue`) and every request with `200 ok`. Nothing is spawned.
 */
class LoopbackPodScaler implements PodScaler {
  #server: Server | undefined;
  #pods: PodInfo[] = [];
  readonly #listeners = new Set<(pods: PodInfo[]) => void>();

  register(): void {}

  async scale(_rev: RevisionKey, desired: number): Promise<void> {
    if (desired < 1 || this.#server) return;
    const server = createServer((req, res) => {
      const probe = req.headers[Header.networkProbe.toLowerCase()] === ProbeValue.queue;
      res.writeHead(200, { "content-type": "text/plain" }).end(probe ? ProbeValue.queue : "ok");
    });
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    this.#pods = [{ name: "warm-up", address: `127.0.0.1:${port}`, ready: true, startedAt: Date.now() }];
    for (const l of this.#listeners) l(this.#pods);
  }

  pods(): PodInfo[] {
    return this.#pods;
  }

  subscribe(_rev: RevisionKey, onChange: (pods: PodInfo[]) => void): () => void {
    this.#listeners.add(onChange);
    return () => this.#listeners.delete(onChange);
  }

  allAddresses(): string[] {
    return this.#pods.map((p) => p.address);
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#pods = [];
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** `GET path` with `Host: host` on a connection of its own; resolves with the status once the body ended. */
function get(
  url: string,
  host: string,
  timeoutMs: number,
  path = "/",
  headers: Record<string, string> = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const opts = { headers: { ...headers, host }, agent: false, timeout: timeoutMs };
    const req = httpGet(`${url}${path}`, opts, (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode ?? 0));
      res.once("error", reject);
    });
    req.once("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.once("error", reject);
  });
}

/** Options of {@link warmUp}. */
export interface WarmUpOptions {
  /** Bound on the warm-up's request (default 2 s): past it the request is abandoned and the copy closed. */
  timeoutMs?: number;
  /** Told why a warm-up failed (`thaw up` passes it only with THAW_UP_DEBUG=1); it is otherwise ignored. */
  debug?: (line: string) => void;
}

/** A warm-up under way: `answered` once its request is done (or failed), `closed` once its copy is gone. */
export interface WarmUp {
  answered: Promise<void>;
  closed: Promise<void>;
}

/**
 * Runs one cold start through a throwaway copy of the stack, so V8 has compiled the request path
 * (gateway, forward-auth and hook decisions, activator hold, probe, forward, answer) before the first
 * real cold start pays for it.
 * The copy has its own autoscaler, feed, metrics and gateway on a loopback port, and a pod in this process,
 * so nothing of it reaches `thaw up`'s services, logs, metrics or dashboard. Neither promise rejects.
 */
export function warmUp(opts: WarmUpOptions = {}): WarmUp {
  const timeoutMs = opts.timeoutMs ?? 2000;
  const parsed = parseConfigText(WARM_UP_CONFIG);
  const resolved = parsed.ok ? resolveServices(parsed.value) : undefined;
  if (!parsed.ok || !resolved?.ok) {
    opts.debug?.("warm-up skipped: its config does not validate");
    return { answered: Promise.resolve(), closed: Promise.resolve() };
  }
  const started = startStack(parsed.value, resolved.value, { podScaler: () => new LoopbackPodScaler() });
  const answered = started
    .then(async (stack) => {
      // First as nginx asks while the revision is cold (forward-auth: answered with the activator as the
      // upstream), then the request itself.
      const auth = await get(stack.url, "warm-up.thaw.internal", timeoutMs, "/_thaw/auth/nginx", {
        "x-forwarded-host": "warm-up.thaw.internal",
        "x-original-uri": "/",
      });
      if (auth !== 200) throw new Error(`forward-auth status ${auth}`);
      const status = await get(stack.url, "warm-up.thaw.internal", timeoutMs);
      if (status !== 200) throw new Error(`status ${status}`);
    })
    .catch((err: unknown) => opts.debug?.(`warm-up failed (ignored): ${String(err)}`));
  const closed = answered.then(() => started.then((s) => s.close())).catch(() => {});
  return { answered, closed };
}
