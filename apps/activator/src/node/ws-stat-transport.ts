import { type ProblemNote, parseProblemNote } from "@thaw/protocol";
import WebSocket from "ws";
import type { StatTransport } from "../stat-pump.js";

/** Largest text frame taken from the autoscaler (a note is at most PROBLEM_NOTE_MAX_BYTES of text, escaped). */
const NOTE_FRAME_MAX_BYTES = 1024 * 1024;

/**
 * Stats over one durable websocket (Knative's activator -> autoscaler link): binary frames, each one
 * `WireStatMessages`. A send on a closed link reconnects first; the pump's backoff paces reconnects. The
 * autoscaler answers on the same link with text frames, what it found wrong with revisions' pods: each one
 * that parses as a ProblemNote goes to `onNote` (a reconnect brings the current ones again). `sendText`
 * sends the activator's own text frames (FirstByteNote) the same way.
 */
export function wsStatTransport(
  url: string,
  token?: string,
  connectTimeoutMs = 2000,
  onNote?: (note: ProblemNote) => void,
): StatTransport {
  let ws: WebSocket | undefined;
  let opening: Promise<WebSocket> | undefined;
  const open = (): Promise<WebSocket> => {
    if (ws && ws.readyState === WebSocket.OPEN) return Promise.resolve(ws);
    opening ??= new Promise<WebSocket>((resolve, reject) => {
      const sock = new WebSocket(url, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
        handshakeTimeout: connectTimeoutMs,
        // What the autoscaler sends is a few notes of a few KiB: bounded (ws's own default is 100 MiB).
        maxPayload: NOTE_FRAME_MAX_BYTES,
      });
      sock.once("open", () => {
        ws = sock;
        opening = undefined;
        resolve(sock);
      });
      sock.once("error", (err) => {
        opening = undefined;
        reject(err);
      });
      if (onNote) {
        sock.on("message", (data, isBinary) => {
          if (isBinary) return;
          const note = parseProblemNote(String(data));
          if (note) onNote(note);
        });
      }
      sock.on("close", () => {
        if (ws === sock) ws = undefined;
      });
    });
    return opening;
  };
  const frame = async (data: Uint8Array | string, binary: boolean) => {
    const sock = await open();
    await new Promise<void>((resolve, reject) =>
      sock.send(data, { binary }, (err) => (err ? reject(err) : resolve())),
    );
  };
  return {
    send: (bytes) => frame(bytes, true),
    sendText: (text) => frame(text, false),
    close() {
      ws?.close(1000);
    },
  };
}
