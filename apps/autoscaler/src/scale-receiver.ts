import type { Clock } from "@thaw/clock";
import { apiErrorResponse, ErrorCode, scaleWebhookHandler } from "@thaw/protocol";
import type { AutoscalerService } from "./service.js";

/** Environment variable that holds the scale webhook's shared secret, for receivers and senders. */
export const SCALE_WEBHOOK_SECRET_ENV = "THAW_SCALE_WEBHOOK_SECRET";

/**
 * `POST /v1/scale`, the receiver of the one scale webhook (CONTRACTS.md). A verified `desiredScale` above
 * zero wakes the service at once, as the activator's cold-start poke does; from then on this autoscaler's
 * own decider, which sees the same traffic through the queue-proxies, owns the count, so a later 0 (or a
 * lower number) is accepted and left to its scale-to-zero grace rule. Without a secret the receiver is off
 * and says how to turn it on.
 */
export function scaleReceiver(
  service: Pick<AutoscalerService, "poke" | "status">,
  secret: string | undefined,
  clock: Clock,
): (req: Request) => Promise<Response> {
  if (!secret) {
    return async () =>
      apiErrorResponse(
        ErrorCode.ERR_UNKNOWN_REVISION,
        `the scale webhook receiver is off: set ${SCALE_WEBHOOK_SECRET_ENV} (at least 16 characters) to turn it on`,
      );
  }
  return scaleWebhookHandler({
    secret,
    clock,
    apply: (r) => {
      const rev = { namespace: r.namespace, name: r.name };
      if (!service.status(rev)) return "unknown";
      if (r.desiredScale > 0) service.poke(rev);
      return "applied";
    },
  });
}
