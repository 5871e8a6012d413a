import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { systemClock } from "@thaw/clock";
import type { QueueProber } from "@thaw/protocol";
import { parseConfig, type QueueProxyConfig } from "../src/config.js";
import type { UpstreamSink } from "../src/ports.js";
import { type RunningQueueProxy, startQueueProxy } from "../src/queue-proxy.js";
import { fieldList } from "../src/response-fields.js";

/** The built bin, run as a child process where process behaviour (exit codes, signals) matters. */
export const BIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));

/** Every variable Knative's reconciler gives a queue-proxy, with valid values (the config parser's tests). */
export const KNATIVE_ENV: Readonly<Record<string, string>> = {
  CONTAINER_CONCURRENCY: "10",
  QUEUE_SERVING_PORT: "8012",
  QUEUE_SERVING_TLS_PORT: "8112",
  USER_PORT: "8080",
  REVISION_TIMEOUT_SECONDS: "300",
  SERVING_LOGGING_CONFIG: "",
  SERVING_LOGGING_LEVEL: "",
  SERVING_NAMESPACE: "default",
  SERVING_CONFIGURATION: "c",
  SERVING_REVISION: "r",
  SERVING_POD: "p",
  SERVING_POD_IP: "",
};

/** Knative's required variables with harmless values, plus free ports for everything. */
export function baseEnv(userPort: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    CONTAINER_CONCURRENCY: "0",
    QUEUE_SERVING_PORT: "0",
    QUEUE_SERVING_TLS_PORT: "8112",
    USER_PORT: String(userPort),
    REVISION_TIMEOUT_SECONDS: "300",
    SERVING_LOGGING_CONFIG: "",
    SERVING_LOGGING_LEVEL: "info",
    SERVING_NAMESPACE: "default",
    SERVING_CONFIGURATION: "hello",
    SERVING_REVISION: "hello-00001",
    SERVING_POD: "hello-00001-deployment-abc",
    SERVING_POD_IP: "127.0.0.1",
    THAW_ADMIN_PORT: "0",
    THAW_METRICS_PORT: "0",
    THAW_USER_METRICS_PORT: "0",
    THAW_BIND_HOST: "127.0.0.1",
    ...extra,
  };
}

/** A parsed config for in-process tests. */
export function configFor(userPort: number, extra: Record<string, string> = {}): QueueProxyConfig {
  const parsed = parseConfig(baseEnv(userPort, extra));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.value;
}

/** What the test backend saw of one request. */
export interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  httpVersion: string;
}

/** A user container: echoes what it received as JSON; `?sleep=ms` delays, `?status=n` sets the status. */
export async function startBackend(): Promise<{ port: number; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const handler = (
    req: http.IncomingMessage | http2.Http2ServerRequest,
    res: http.ServerResponse | http2.Http2ServerResponse,
  ) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x");
      const entry: Seen = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: { ...req.headers },
        body: Buffer.concat(chunks).toString(),
        httpVersion: req.httpVersion,
      };
      seen.push(entry);
      const sleep = Number(url.searchParams.get("sleep") ?? 0);
      const status = Number(url.searchParams.get("status") ?? 200);
      const stream = url.searchParams.get("stream");
      const answer = () => {
        if (res.destroyed) return;
        if (stream !== null) {
          // Several chunks with pauses: streaming must reach the client before the end.
          (res as http.ServerResponse).writeHead(status, { "content-type": "text/plain" });
          let n = 0;
          const tick = setInterval(() => {
            if (res.destroyed || n >= Number(stream)) {
              clearInterval(tick);
              res.end();
              return;
            }
            (res as http.ServerResponse).write(`chunk${n++}\n`);
          }, 50);
          return;
        }
        const body = JSON.stringify(entry);
        (res as http.ServerResponse).writeHead(status, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        });
        res.end(body);
      };
      if (sleep > 0) setTimeout(answer, sleep);
      else answer();
    });
  };
  // One port for HTTP/1.1 and h2c prior knowledge, like the queue-proxy itself.
  const h1 = http.createServer(handler);
  const h2 = http2.createServer(handler);
  const { createServer } = await import("node:net");
  const front = createServer((socket) => {
    socket.once("data", (chunk: Buffer) => {
      socket.pause();
      socket.unshift(chunk);
      (chunk.subarray(0, 3).toString() === "PRI" ? h2 : h1).emit("connection", socket);
      process.nextTick(() => socket.resume());
    });
  });
  await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
  const sockets = new Set<import("node:net").Socket>();
  front.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  return {
    port: (front.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        front.close(() => r());
      }),
  };
}

/** Starts the queue-proxy in this process. */
export async function startInProcess(
  userPort: number,
  extra: Record<string, string> = {},
  prober: QueueProber | null = () => true,
): Promise<RunningQueueProxy & { url: string }> {
  const qp = await startQueueProxy(configFor(userPort, extra), {
    clock: systemClock,
    prober,
    requestLog: null,
  });
  return { ...qp, url: `http://127.0.0.1:${qp.ports.serving}` };
}

/** A running bin and the ports it printed. */
export interface Child {
  proc: ChildProcess;
  ports: { serving: number; servingTls: number; admin: number; metrics: number; userMetrics: number };
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Runs the bin (or another entry file) with `env` and waits for its "listening" line (or its exit). */
export function runBin(env: Record<string, string>, bin = BIN): Promise<Child> {
  const proc = spawn(process.execPath, [bin], {
    env: { PATH: process.env["PATH"] ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bin did not start: ${err}`)), 10_000);
    proc.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
      const line = err.split("\n").find((l) => l.includes("thaw-queue-proxy listening"));
      if (line) {
        clearTimeout(timer);
        resolve({ proc, ports: JSON.parse(line), stderr: () => err, exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      resolve({
        proc,
        ports: { serving: 0, servingTls: 0, admin: 0, metrics: 0, userMetrics: 0 },
        stderr: () => err,
        exited: Promise.resolve(code),
      });
    });
  });
}

/** A plain HTTP/1.1 request; resolves with status, headers and body text. */
export function get(
  url: string,
  headers: Record<string, string> = {},
  options: { method?: string; body?: string; agent?: http.Agent | false } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? "GET", headers, agent: options.agent ?? false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Waits until `cond` holds, polling every 10 ms, for at most `ms`. */
export async function until(cond: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("condition not met in time");
}

/** What an upstream sink saw of one response (h1-upstream and h1-client tests). */
export interface Outcome {
  status: number;
  headers: string[];
  body: string;
  error?: Error;
  /** What `onError` said of the request: true = no byte of it can have reached the app. */
  unsent?: boolean | undefined;
}

/** Runs `dispatch` with a sink that records the response (head fields copied: a view is valid only in the call). */
export function collect(dispatch: (sink: UpstreamSink) => void): Promise<Outcome> {
  return new Promise((resolve) => {
    const out: Outcome = { status: 0, headers: [], body: "" };
    dispatch({
      onConnect: () => {},
      startResponse: (status, headers) => {
        out.status = status;
        out.headers = [...fieldList(headers)];
        return true;
      },
      onData: (chunk) => {
        out.body += chunk.toString("latin1");
        return true;
      },
      onComplete: () => resolve(out),
      onError: (err, unsent) => resolve({ ...out, error: err, unsent }),
      resumeWith: () => {},
    });
  });
}
