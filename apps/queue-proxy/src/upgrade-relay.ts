/**
 * One upgrade request carried from a socket Node's server has let go of to an app connection: the request
 * head and its declared body go to the app, the app's answer is read with the HTTP/1 response parser, and
 * only a 101 turns the two sockets into a tunnel. Any other answer goes back as an ordinary response that
 * closes the connection, so nothing the client sends after its request ever reaches the app as raw bytes.
 */
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { closingAnswer } from "./h1-reply.js";
import { H1ResponseParser } from "./h1-response-parser.js";
import { RequestBodyBounds } from "./request-body-bounds.js";
import type { ResponseFields } from "./response-fields.js";

/** A tunnel with no byte either way for this long is closed (both sides). */
export const DEFAULT_TUNNEL_IDLE_MS = 300_000;

/** Client bytes past its request while the app has not answered; a client sending more is cut off. */
const MAX_EARLY_BYTES = 64 * 1024;

/** How a relayed upgrade ended. */
export type UpgradeOutcome = "tunnel-closed" | "refused" | "failed" | "client-gone";

/** What `relayUpgrade` needs. */
export interface UpgradeRelay {
  /** The client's socket (Node's `upgrade` event) and the bytes Node read past the request head. */
  client: Duplex;
  clientHead: Buffer;
  /** The request head for the app, blank line included. */
  requestHead: string;
  /** The request was HEAD (its answer has no body). */
  headRequest: boolean;
  /** The declared body: Transfer-Encoding chunked, else Content-Length (0 when none). */
  chunked: boolean;
  contentLength: number;
  /** A connection to the app, connecting or connected. */
  app: Socket;
  /** A tunnel's idle limit (ms). */
  idleMs: number;
  /** The app answered 101 and the tunnel is open. */
  onTunnel?(): void;
  /** Called once, when both sockets are done with. */
  onEnd(outcome: UpgradeOutcome, error?: Error): void;
}

/** Relays one upgrade request; returns a function that closes it (drain). */
export function relayUpgrade(r: UpgradeRelay): () => void {
  const { client, app } = r;
  const body = new RequestBodyBounds(r.chunked, r.contentLength);
  // Client bytes past the request (never sent on: a refusal closes, a 101 after them is cut off).
  let earlyBytes = 0;
  let ended = false;
  let answered = false;
  const end = (outcome: UpgradeOutcome, error?: Error) => {
    if (ended) return;
    ended = true;
    app.destroy();
    if (outcome === "refused") client.end();
    else client.destroy();
    r.onEnd(outcome, error);
  };
  const fail = (err: Error) => {
    if (!answered && !client.destroyed) client.end(closingAnswer(502, `${err.message}\n`));
    end("failed", err);
  };

  // Before the answer: the declared body goes on; anything after it is counted and dropped.
  const fromClient = (chunk: Buffer) => {
    let used: number;
    try {
      used = body.take(chunk);
    } catch (err) {
      answered = true;
      client.end(closingAnswer(400, `${(err as Error).message}\n`));
      end("failed", err as Error);
      return;
    }
    if (used > 0) app.write(used === chunk.length ? chunk : chunk.subarray(0, used));
    if (used < chunk.length) {
      earlyBytes += chunk.length - used;
      if (earlyBytes > MAX_EARLY_BYTES) end("failed", new Error("client sent too much before the answer"));
    }
  };

  const parser = new H1ResponseParser({
    head: (status, fields) => {
      answered = true;
      client.write(refusedHead(status, fields), "latin1");
    },
    body: (chunk) => {
      if (!client.write(chunk)) app.pause();
    },
    end: () => end("refused"),
    switched: (head) => {
      answered = true;
      // No upgrade protocol carried here lets the client speak before the switch (RFC 6455 4.1 for
      // websockets): bytes it sent early belong to no protocol the app agreed to.
      if (earlyBytes > 0) {
        end("failed", new Error("client sent bytes before the 101"));
        return;
      }
      client.write(head);
      client.write("\r\n\r\n", "latin1");
    },
  });
  parser.start(r.headRequest, true);

  const fromApp = (chunk: Buffer) => {
    let used: number;
    try {
      used = parser.feedUpgrade(chunk);
    } catch (err) {
      fail(err as Error);
      return;
    }
    if (!parser.switchedOver || ended) return;
    app.off("data", fromApp);
    client.off("data", fromClient);
    if (used < chunk.length) client.write(chunk.subarray(used));
    tunnel();
  };

  const tunnel = () => {
    app.pipe(client);
    client.pipe(app);
    r.onTunnel?.();
  };

  // Every byte either way is read from one socket and written to the other, so the app socket's timeout
  // sees both directions: a silent tunnel (or an app that never answers) is closed after `idleMs`.
  app.setTimeout(r.idleMs, () => {
    if (parser.switchedOver) end("tunnel-closed", new Error("tunnel idle"));
    else fail(new Error(`no answer from the app within ${r.idleMs} ms`));
  });
  client.on("drain", () => app.resume());
  client.on("data", fromClient);
  app.on("data", fromApp);
  app.on("end", () => {
    if (parser.switchedOver) return end("tunnel-closed");
    try {
      parser.eof();
    } catch (err) {
      fail(err as Error);
    }
  });
  app.on("close", () => end(parser.switchedOver ? "tunnel-closed" : "failed"));
  app.on("error", (err) => (parser.switchedOver ? end("tunnel-closed", err) : fail(err)));
  client.on("error", () => end("client-gone"));
  client.on("close", () => end(parser.switchedOver ? "tunnel-closed" : "client-gone"));
  app.write(r.requestHead, "latin1");
  if (r.clientHead.length > 0) fromClient(r.clientHead);
  return () => end("tunnel-closed", new Error("closed on drain"));
}

/** A refused upgrade's head for the client: the app's fields, its body until the close. */
function refusedHead(status: number, fields: ResponseFields): string {
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Unknown"}\r\n`;
  const list = fields.list;
  for (let i = 0; i < list.length; i += 2) head += `${list[i]}: ${list[i + 1]}\r\n`;
  return `${head}connection: close\r\n\r\n`;
}
