import type { Clock } from "@thaw/clock";
import { apiErrorResponse } from "./activation-api.js";
import { BODY_LIMITS, bodyErrorResponse, readBoundedText } from "./bounded-body.js";
import { ErrorCode } from "./error-code.js";
import {
  parseScaleRequest,
  SCALE_WEBHOOK_WINDOW_MS,
  type ScaleRequest,
  verifyScaleWebhook,
} from "./scale-webhook.js";

/** What applying a verified request came to. */
export type ScaleApplied = "applied" | "unknown";

/** Options of {@link scaleWebhookHandler}. */
export interface ScaleReceiverOptions {
  secret: string;
  clock: Clock;
  /** Scales the named service; "unknown" when the receiver runs no such service. */
  apply: (req: ScaleRequest) => ScaleApplied | Promise<ScaleApplied>;
  windowMs?: number;
}

/**
 * The receiver of the one scale webhook (`POST /v1/scale` on `thaw-autoscaler` and `thaw up`): verifies
 * the signature and timestamp, refuses a signature already seen inside the window (a replay), validates
 * the body, then applies it. 401 for any signing problem, 400 naming the bad field, 404 for a service
 * the receiver does not run, 200 `{namespace, name, desiredScale}` once applied.
 */
export function scaleWebhookHandler(o: ScaleReceiverOptions): (req: Request) => Promise<Response> {
  const windowMs = o.windowMs ?? SCALE_WEBHOOK_WINDOW_MS;
  const seen = new Map<string, number>();
  return async (req) => {
    // The signature covers the body, so the body is read first: only up to the bound (413 past it).
    let text: string;
    try {
      text = await readBoundedText(req, BODY_LIMITS.scaleWebhook);
    } catch (err) {
      const tooLarge = bodyErrorResponse(err);
      if (tooLarge) return tooLarge;
      throw err;
    }
    const now = o.clock.now();
    const v = await verifyScaleWebhook(o.secret, req.headers, text, now, windowMs);
    if (!v.ok) return apiErrorResponse(ErrorCode.ERR_UNAUTHORIZED, v.message);
    for (const [sig, until] of seen) if (until <= now) seen.delete(sig);
    if (seen.has(v.signature)) {
      return apiErrorResponse(ErrorCode.ERR_UNAUTHORIZED, "this signature was already used (replay)");
    }
    // Kept for twice the window: a timestamp may be that far from the one that was first accepted.
    seen.set(v.signature, now + 2 * windowMs);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return apiErrorResponse(ErrorCode.ERR_BAD_REQUEST, "body: must be JSON (a thaw.scale/v1 ScaleRequest)");
    }
    const parsed = parseScaleRequest(json);
    if (!parsed.ok) {
      const msg = parsed.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
      return apiErrorResponse(ErrorCode.ERR_BAD_REQUEST, msg);
    }
    const { namespace, name, desiredScale } = parsed.value;
    if ((await o.apply(parsed.value)) === "unknown") {
      return apiErrorResponse(
        ErrorCode.ERR_UNKNOWN_REVISION,
        `no service ${namespace}/${name} is scaled here`,
      );
    }
    return Response.json({ namespace, name, desiredScale });
  };
}
