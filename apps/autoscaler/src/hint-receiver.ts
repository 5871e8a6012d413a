import {
  apiErrorResponse,
  BODY_LIMITS,
  badActivateRequestResponse,
  bodyErrorResponse,
  ErrorCode,
  parseActivateRequest,
  readBoundedText,
  type WarmHintResponse,
} from "@thaw/protocol";
import type { AutoscalerService } from "./service.js";

/**
 * `POST /v1/activate` with `ttlSeconds` and no `timeoutMs` (CONTRACTS.md, a wake hint alone): what a cluster's
 * activator passes on, since it cannot scale itself. 202 with `warmUntilMs`; an activation that waits for a
 * pod (`timeoutMs`) is the activator's, and is refused here naming it.
 */
export function hintReceiver(service: AutoscalerService): (req: Request) => Promise<Response> {
  return async (req) => {
    let body: unknown;
    try {
      body = JSON.parse(await readBoundedText(req, BODY_LIMITS.activate));
    } catch (err) {
      const tooLarge = bodyErrorResponse(err);
      if (tooLarge) return tooLarge;
      return apiErrorResponse(ErrorCode.ERR_BAD_REQUEST, "body: must be JSON {namespace, name, ttlSeconds}");
    }
    const parsed = parseActivateRequest(body);
    if (!parsed.ok) return badActivateRequestResponse(parsed.issues);
    const { namespace, name, ttlSeconds, timeoutMs } = parsed.value;
    if (ttlSeconds === undefined || timeoutMs !== undefined) {
      return apiErrorResponse(
        ErrorCode.ERR_BAD_REQUEST,
        "timeoutMs: the autoscaler takes wake hints only (ttlSeconds without timeoutMs); send activations to the activator",
      );
    }
    const warmUntilMs = service.hint({ namespace, name }, ttlSeconds * 1000);
    if (warmUntilMs === undefined) {
      return apiErrorResponse(ErrorCode.ERR_UNKNOWN_REVISION, `revision "${namespace}/${name}" not found`);
    }
    const answer: WarmHintResponse = { namespace, name, warmUntilMs };
    return Response.json(answer, { status: 202 });
  };
}
