/**
 * Clients of drain-app.mjs's long exchanges (a slow request, an SSE stream, a websocket), each of which
 * learns the pod that serves it as early as it can and records how it ended, so a drain test can hold
 * them open across a scale-down and then check every byte arrived and the close was clean.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import { WebSocket } from "ws";

/** One exchange in flight: its id, the pod serving it (once known) and how it ended. */
export interface Exchange<T> {
  id: string;
  /** Set as soon as the pod is known (from the stream's first message, or the app's arrival log). */
  pod: string | undefined;
  /** True once `done` settled: a test checks an exchange was still open when the drain began. */
  finished: boolean;
  done: Promise<T>;
}

/** How a slow request ended. */
export interface SlowResult {
  status: number;
  bytes: number;
  pod: string;
  error?: string;
}

/** `GET /slow?ms=&bytes=&id=` through `base` with `host`; never rejects. */
export function slowRequest(
  base: string,
  host: string,
  id: string,
  ms: number,
  bytes: number,
  headers: Record<string, string> = {},
): Exchange<SlowResult> {
  const u = new URL(base);
  const ex: Exchange<SlowResult> = { id, pod: undefined, finished: false, done: Promise.resolve() as never };
  ex.done = new Promise((resolve) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: `/slow?ms=${ms}&bytes=${bytes}&id=${id}`,
        headers: { ...headers, host },
        agent: false,
      },
      (res) => {
        let n = 0;
        res.on("data", (c: Buffer) => {
          n += c.length;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, bytes: n, pod: String(res.headers["x-pod"] ?? "") }),
        );
        res.on("error", (e) => resolve({ status: res.statusCode ?? 0, bytes: n, pod: "", error: String(e) }));
      },
    );
    req.setTimeout(120_000, () => req.destroy(new Error("timeout")));
    req.on("error", (e) => resolve({ status: 0, bytes: 0, pod: "", error: String(e) }));
    req.end();
  });
  return tracked(ex);
}

/** How an SSE stream ended. */
export interface SseResult {
  status: number;
  /** The `data:` values of the numbered events, in order. */
  data: string[];
  /** The `event: end` arrived and then the response ended normally. */
  ended: boolean;
  error?: string;
}

/** `GET /sse?n=&every=&id=`; `pod` is set from the stream's `event: hello`. Never rejects. */
export function sseStream(
  base: string,
  host: string,
  id: string,
  n: number,
  everyMs: number,
  headers: Record<string, string> = {},
): Exchange<SseResult> {
  const u = new URL(base);
  const ex: Exchange<SseResult> = { id, pod: undefined, finished: false, done: Promise.resolve() as never };
  ex.done = new Promise((resolve) => {
    const data: string[] = [];
    let sawEnd = false;
    let buf = "";
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: `/sse?n=${n}&every=${everyMs}&id=${id}`,
        headers: { ...headers, host },
        agent: false,
      },
      (res) => {
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          buf += c;
          for (let k = buf.indexOf("\n\n"); k >= 0; k = buf.indexOf("\n\n")) {
            const event = buf.slice(0, k);
            buf = buf.slice(k + 2);
            const value = /^data: (.*)$/m.exec(event)?.[1] ?? "";
            if (event.startsWith("event: hello")) ex.pod = value;
            else if (event.startsWith("event: end")) sawEnd = true;
            else data.push(value);
          }
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, data, ended: sawEnd && buf === "" }));
        res.on("error", (e) =>
          resolve({ status: res.statusCode ?? 0, data, ended: false, error: String(e) }),
        );
      },
    );
    req.setTimeout(120_000, () => req.destroy(new Error("timeout")));
    req.on("error", (e) => resolve({ status: 0, data, ended: false, error: String(e) }));
    req.end();
  });
  return tracked(ex);
}

/** How a websocket session ended. */
export interface WsResult {
  /** The echoes received, in order. */
  echoes: string[];
  /** The close code the server answered our close with (1000 = clean), or 1006 for a cut connection. */
  closeCode: number;
  error?: string;
}

/**
 * A websocket to `/ws?id=` that sends `messages` numbered messages `everyMs` apart, waits for their echoes,
 * then closes with 1000. `pod` is set from the app's greeting. Never rejects.
 */
export function wsSession(
  base: string,
  host: string,
  id: string,
  messages: number,
  everyMs: number,
  headers: Record<string, string> = {},
): Exchange<WsResult> {
  const ex: Exchange<WsResult> = { id, pod: undefined, finished: false, done: Promise.resolve() as never };
  ex.done = new Promise((resolve) => {
    const echoes: string[] = [];
    let error: string | undefined;
    const ws = new WebSocket(`${base.replace(/^http/, "ws")}/ws?id=${id}`, { headers: { ...headers, host } });
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    ws.on("message", (d) => {
      const text = String(d);
      if (text.startsWith("hello ")) {
        ex.pod = text.slice(6);
        timer = setInterval(() => {
          if (sent < messages) ws.send(`m${sent++}`);
          else clearInterval(timer);
        }, everyMs);
        return;
      }
      echoes.push(text);
      if (echoes.length === messages) ws.close(1000, "done");
    });
    ws.on("error", (e) => {
      error = String(e);
    });
    ws.on("close", (code) => {
      clearInterval(timer);
      resolve({ echoes, closeCode: code, ...(error ? { error } : {}) });
    });
    setTimeout(() => ws.terminate(), 120_000).unref();
  });
  return tracked(ex);
}

/** Marks `ex` finished when its `done` settles; returns it. */
function tracked<T>(ex: Exchange<T>): Exchange<T> {
  void ex.done.then(() => {
    ex.finished = true;
  });
  return ex;
}

/** One line of drain-app.mjs's arrival log. */
export interface Arrival {
  pod: string;
  pid: number;
  kind: string;
  id: string;
  at: number;
}

/** Every arrival logged so far in `file`. */
export function arrivals(file: string): Arrival[] {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Arrival);
}
