import http from "node:http";
import https from "node:https";
import { groupHeaders } from "../headers.js";
import type { HttpProbeRequest, HttpProbeResponse } from "../transport.js";
import { settleOnce } from "./guard.js";

/** One HTTP/1.1 GET on a fresh connection (no agent, so `Connection: close`); resolves after the body drained. */
export function http1Get(
  req: HttpProbeRequest,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<HttpProbeResponse> {
  const url = new URL(req.url);
  const secure = url.protocol === "https:";
  let request: http.ClientRequest | undefined;
  return settleOnce<HttpProbeResponse>(
    signal,
    timeoutMs,
    () => request?.destroy(),
    (resolve, reject) => {
      const options: https.RequestOptions = {
        hostname: url.hostname.replace(/^\[|\]$/g, ""),
        port: url.port || (secure ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: groupHeaders(req.headers),
        agent: false,
        // kubelet and Knative do not verify the certificate of an HTTPS probe target.
        ...(secure ? { rejectUnauthorized: false } : {}),
      };
      request = (secure ? https : http).request(options, (res) => {
        res.on("data", () => {});
        res.on("end", () => {
          const location = res.headers.location;
          resolve(location ? { status: res.statusCode ?? 0, location } : { status: res.statusCode ?? 0 });
        });
        res.on("error", reject);
      });
      request.on("error", reject);
      request.end();
    },
  );
}
