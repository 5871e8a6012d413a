import { deliveredIo } from "@thaw/activation";
import { ErrorCode } from "@thaw/protocol";
import type { Deny } from "./decision/decision.js";

/**
 * After a hold (a cold start, or a wait for a pod slot), the deny for a client that left meanwhile, or
 * undefined when it is still there. The hold usually ends for many requests at once, inside the I/O that
 * ended it, and a client's disconnect may wait behind it in the same batch: asked once the I/O already
 * received has run (`deliveredIo`, @thaw/activation), so that such a request is dropped, not passed on
 * (issue 26: 300 clients gone at once, 52 still reached the app through `thaw up`'s gateway).
 */
export async function leftWhileHeld(signal: AbortSignal, key: string): Promise<Deny | undefined> {
  await deliveredIo();
  if (!signal.aborted) return undefined;
  // Nobody reads this answer; it says what happened in logs and traces.
  return {
    kind: "deny",
    status: 503,
    code: ErrorCode.ERR_CANCELLED,
    message: `the client left while its request for ${key} was held`,
  };
}
