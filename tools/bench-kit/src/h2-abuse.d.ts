import type http2 from "node:http2";
/** An h2c session to 127.0.0.1:`port`, once the server's SETTINGS arrived. */
export function h2Connect(port: number): Promise<http2.ClientHttp2Session>;
/** One request on a session (or a new one to a port). */
export function h2Request(
  target: number | http2.ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
  opts?: { timeoutMs?: number },
): Promise<{ status: number; body: string }>;
/** Raw frames: `n` streams each HEADERS + RST_STREAM in one write, then a sentinel stream; see the .mjs. */
export function rapidReset(
  port: number,
  opts: {
    n: number;
    path?: string;
    authority?: string;
    headers?: Record<string, string>;
    sentinel?: boolean;
    batch?: number;
    pauseMs?: number;
    maxMs?: number;
  },
): Promise<{ goaway: number | null; sent: number; sentinel: number | null }>;
/** Preface only: ms until the server closed the connection, null if open at `maxMs`. */
export function prefaceOnly(port: number, opts: { maxMs: number }): Promise<number | null>;
/** A session left without streams (after one request when `headers`): ms until the server closed it. */
export function idleSession(
  port: number,
  opts: { headers?: http2.OutgoingHttpHeaders | null; maxMs: number },
): Promise<number | null>;
/** The counting app (HTTP/1.1 and, unless `http1Only`, h2c on one port). */
export function countApp(opts?: { port?: number; http1Only?: boolean }): Promise<{
  port: number;
  count(): number;
  close(): Promise<void>;
}>;
/** The rapid-reset scenario; see the .mjs. */
export function rapidResetScenario(
  port: number,
  opts: {
    label: string;
    authority: string;
    /** Request fields besides :method/:scheme/:path/:authority (e.g. Knative-Serving-Revision). */
    headers?: Record<string, string>;
    reached: () => number | Promise<number>;
    sessions?: number;
    perSession?: number;
    flood?: number;
  },
): Promise<{ resetReached: number; floodReached: number; problems: string[] }>;
/** The idle-session scenario; see the .mjs. */
export function idleSessionScenario(
  port: number,
  opts: {
    label: string;
    limitMs: number;
    authority: string;
    /** Request fields besides :method/:path/:authority (e.g. Knative-Serving-Revision). */
    headers?: Record<string, string>;
    /** What the server does with a session idle after a stream: close it at the limit (default) or keep it. */
    idleAfterStream?: "closed" | "open";
  },
): Promise<{
  prefaceOnlyClosedMs: number | null;
  noStreamClosedMs: number | null;
  idleAfterStreamClosedMs: number | null;
  problems: string[];
}>;
/** Path of the counting app as a process (PORT; HTTP1_ONLY=1 for an app without h2c). */
export const COUNT_APP: string;
/** One stream of {@link h2Frames}: its path, DATA frames, and after how many of them it is reset (null: never). */
export interface RawStream {
  path: string;
  body: string[];
  resetAfter: number | null;
}
/** Raw frames of `streams` interleaved by `order` in one write; each stream's answer (200, -1 other, null none). */
export function h2Frames(
  port: number,
  opts: { streams: RawStream[]; order: number[]; authority?: string; maxMs?: number },
): Promise<(number | null)[]>;
