import { deliveredIo } from "@thaw/activation";
import { ErrorCode } from "@thaw/protocol";
import type { Context } from "hono";
import type { Deny } from "./decision/decision.js";

/**
 * A gateway's quicker word on a held client (`thaw up` on Node: its socket's read side has ended or the
 * socket is gone): true when it has left, false when it is still there, undefined when the gateway cannot
 * tell (Workers, a test's app), and then the request's signal decides.
 */
export type ConnectionEnded = (c: Context) => boolean | undefined;

/**
 * After a hold (a cold start, or a wait for a pod slot), the deny for a client that left meanwhile, or
 * undefined when it is still there. The hold usually ends for many requests at once, inside the I/O that
 * ended it, and a client's disconnect may wait behind it in the same batch: asked once the I/O already
 * received has run, so that such a request is dropped, not passed on (issue 26: 300 clients gone at once,
 * 52 still reached the app through `thaw up`'s gateway). The request's signal knows it three loop turns on
 * (`deliveredIo`, @thaw/activation: node:http closes the socket after ending its side); a gateway that reads
 * the connection itself (`ended`) knows it once the batch has run, one turn on (issue 30: the cold request
 * waited the other two for nothing).
 */
export async function leftWhileHeld(
  signal: AbortSignal,
  key: string,
  ended?: () => boolean | undefined,
): Promise<Deny | undefined> {
  if (ended?.() === undefined) {
    await deliveredIo();
    if (!signal.aborted) return undefined;
  } else {
    await oneTurn();
    if (!signal.aborted && !ended()) return undefined;
  }
  // Nobody reads this answer; it says what happened in logs and traces.
  return {
    kind: "deny",
    status: 503,
    code: ErrorCode.ERR_CANCELLED,
    message: `the client left while its request for ${key} was held`,
  };
}

/** Resolves in the next check phase (Node's `setImmediate`), after the poll phase's batch of I/O. */
function oneTurn(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => void }).setImmediate;
  return new Promise((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}
