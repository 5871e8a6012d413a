import type { IncomingMessage } from "node:http";
import type { Context } from "hono";

/**
 * `ConnectionEnded` for Hono on @hono/node-server: whether the client's socket has had its end read or is
 * gone, undefined when the context has no Node request (an app called in process, as in tests).
 */
export function nodeConnectionEnded(c: Context): boolean | undefined {
  const socket = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
  if (!socket) return undefined;
  return socket.readableEnded || socket.destroyed;
}
