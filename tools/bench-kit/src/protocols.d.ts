/** Path of the protocol app (HTTP/1 echo, SSE, websocket echo, h2c echo, gRPC thaw.test.Echo). */
export const PROTOCOL_APP: string;
/** Where a path under test listens and the host it routes on. */
export interface Target {
  origin: string;
  host: string;
  /** Extra request headers (gRPC: metadata), e.g. Knative-Serving-Namespace/-Revision for the activator. */
  headers?: Record<string, string>;
  timeoutMs?: number;
}
/** HTTP/1.1 POST /echo. */
export function httpEcho(
  o: Target & { body: string },
): Promise<{ status: number; body: string; pid?: string }>;
/** One server-sent event of the app: `id: i`, `data: {"pid","i"}`. */
export interface SseEvent {
  id: string;
  data: { pid: string; i: number };
}
/** GET /sse?n=&gapMs=, read to its end. */
export function sseRead(
  o: Target & { n: number; gapMs?: number; onEvent?: (e: SseEvent) => void },
): Promise<{ status: number; contentType?: string; events: SseEvent[]; rest: string }>;
/** An open websocket to the app's echo. */
export interface WsEcho {
  pid?: string;
  send(text: string): Promise<string>;
  close(): void;
}
/** Opens a websocket (rejects naming the status when the handshake is refused). */
export function wsOpen(o: Target & { path?: string }): Promise<WsEcho>;
/** An h2c prior-knowledge session; `echo` is POST /h2/echo. */
export function h2Session(o: Target): {
  echo(body: string): Promise<{ status: number; body: string; pid?: string; appProtocol?: string }>;
  close(): void;
};
/** A gRPC message of the app. */
export interface EchoReply {
  pid: string;
  text: string;
  i?: number;
}
/** A bidi call in progress. */
export interface BidiCall {
  send(text: string): Promise<EchoReply>;
  /** Half-closes and resolves with the call's status code (0 = OK). */
  end(): Promise<number>;
}
/** A @grpc/grpc-js client of thaw.test.Echo. */
export function grpcClient(o: Target): {
  unary(text: string): Promise<EchoReply>;
  /** A unary call asking the app for gRPC status `code`: the status and details the client got. */
  unaryFailing(code: number): Promise<{ code: number; details: string }>;
  serverStream(
    n: number,
    gapMs?: number,
    text?: string,
    onMessage?: (m: EchoReply) => void,
  ): Promise<EchoReply[]>;
  bidi(): BidiCall;
  close(): void;
};
/** Every protocol the matrix covers. */
export const PROTOCOLS: readonly string[];
/** Each protocol once, all at once: `"ok"` or what went wrong, and which pids answered. */
export function exerciseProtocols(
  target: Target,
  only?: readonly string[],
): Promise<Record<string, { result: string; pids: string[] }>>;
