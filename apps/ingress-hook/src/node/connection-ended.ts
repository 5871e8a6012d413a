import type { IncomingMessage } from "node:http";
import { clientLeft } from "@thaw/protocol/node";
import type { Context } from "hono";

/**
 * `ConnectionEnded` for Hono on @hono/node-server: whether the client's socket has had its end read or is
 * gone (`clientLeft`), undefined when the context has no Node request (an app called in process, as in tests).
 */
export function nodeConnectionEnded(c: Context): boolean | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming ? clientLeft(incoming.socket) : undefined;
}
