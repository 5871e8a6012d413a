import {
  BODY_LIMITS,
  bodyErrorResponse,
  decodeWireStatMessages,
  ErrorCode,
  PROTOBUF_CONTENT_TYPE,
  readBoundedBody,
  type WireStatMessage,
} from "@thaw/protocol";
import type { ActivatorDeps } from "../ports.js";
import { apiError } from "./errors.js";

/**
 * `POST /v1/stats` (CONTRACTS.md): an ingress hook's report of the requests it holds (one serialised
 * `WireStatMessages`, as the autoscaler's own `/v1/stats` takes), passed on with this activator's stats.
 * Knative's activator reports the requests it holds; in Thaw the hook holds them before the activator sees
 * them, so the activator carries the hook's count to the autoscaler on the link it already keeps (docs/demand.md).
 */
export async function handleStats(req: Request, deps: ActivatorDeps): Promise<Response> {
  const relay = deps.relayStats;
  if (!relay) {
    return apiError(
      ErrorCode.ERR_UNKNOWN_REVISION,
      "this activator passes no stats on; report held requests to the autoscaler, or leave them out",
    );
  }
  const type = (req.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== PROTOBUF_CONTENT_TYPE) {
    return apiError(ErrorCode.ERR_BAD_REQUEST, `Content-Type: must be ${PROTOBUF_CONTENT_TYPE}`);
  }
  let bytes: Uint8Array;
  try {
    bytes = await readBoundedBody(req, BODY_LIMITS.stats);
  } catch (err) {
    const tooLarge = bodyErrorResponse(err);
    if (tooLarge) return tooLarge;
    throw err;
  }
  const decoded = decodeWireStatMessages(bytes);
  if (!decoded.ok) return apiError(ErrorCode.ERR_BAD_REQUEST, `body: ${decoded.issue.message}`);
  // As the autoscaler's intake: a message naming no revision or carrying no stat is dropped.
  const usable: WireStatMessage[] = decoded.value.filter(
    (m) => m.stat && m.name !== "" && m.namespace !== "",
  );
  if (usable.length > 0) await relay(usable);
  return new Response(null, { status: 204 });
}
