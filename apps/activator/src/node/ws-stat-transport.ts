import WebSocket from "ws";
import type { StatTransport } from "../stat-pump.js";

/**
 * Stats over one durable websocket (Knative's activator -> autoscaler link): binary frames, each one
 * `WireStatMessages`. A send on a closed link reconnects first; the pump's backoff paces reconnects.
 */
export function wsStatTransport(url: string, token?: string, connectTimeoutMs = 2000): StatTransport {
  let ws: WebSocket | undefined;
  let opening: Promise<WebSocket> | undefined;
  const open = (): Promise<WebSocket> => {
    if (ws && ws.readyState === WebSocket.OPEN) return Promise.resolve(ws);
    opening ??= new Promise<WebSocket>((resolve, reject) => {
      const sock = new WebSocket(url, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
        handshakeTimeout: connectTimeoutMs,
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
      sock.on("close", () => {
        if (ws === sock) ws = undefined;
      });
    });
    return opening;
  };
  return {
    async send(bytes) {
      const sock = await open();
      await new Promise<void>((resolve, reject) =>
        sock.send(bytes, { binary: true }, (err) => (err ? reject(err) : resolve())),
      );
    },
    close() {
      ws?.close(1000);
    },
  };
}
