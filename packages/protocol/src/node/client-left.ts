import type { Socket } from "node:net";

/**
 * Whether a server-side HTTP/1 client has left: its end was read or its socket is gone. Asked one loop turn
 * after a held request's wait ended (once the I/O batch that ended it has run), it tells what node:http
 * would say only two turns later with the response's `close` (issue 26, issue 30).
 */
export function clientLeft(socket: Socket | null | undefined): boolean {
  return socket == null || socket.readableEnded || socket.destroyed;
}
