import type { IncomingMessage, ServerResponse } from "node:http";
import { redactTarget, targetHasUserinfo } from "../request-target.js";

/**
 * Wraps a Node request listener so a target with userinfo (`GET http://user:pw@host/...`) is answered 400
 * before anything else sees it: it is never routed, forwarded nor logged (Web `Request` cannot even hold
 * such a URL, which made a 500 and a stack trace with the URL on every request).
 */
export function refuseCredentialTargets<L extends (req: IncomingMessage, res: ServerResponse) => unknown>(
  listener: L,
): L {
  return ((req: IncomingMessage, res: ServerResponse) => {
    if (!targetHasUserinfo(req.url ?? "/")) return listener(req, res);
    const body = `${JSON.stringify({
      error: {
        code: "ERR_BAD_REQUEST",
        message: `request target: credentials (user:password@) are not allowed in the URL (${redactTarget(req.url ?? "")})`,
      },
    })}\n`;
    res.writeHead(400, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      connection: "close",
    });
    res.end(body);
  }) as L;
}
