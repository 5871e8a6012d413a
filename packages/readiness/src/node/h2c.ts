import http2 from "node:http2";
import { groupHeaders } from "../headers.js";
import type { HttpProbeRequest, HttpProbeResponse } from "../transport.js";
import { settleOnce } from "./guard.js";

/** One GET over HTTP/2 with prior knowledge (h2c for `http:` URLs) on its own session. */
export function h2cGet(
  req: HttpProbeRequest,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<HttpProbeResponse> {
  const url = new URL(req.url);
  let session: http2.ClientHttp2Session | undefined;
  return settleOnce<HttpProbeResponse>(
    signal,
    timeoutMs,
    () => session?.destroy(),
    (resolve, reject) => {
      session = http2.connect(url.origin, { rejectUnauthorized: false });
      session.on("error", reject);
      const stream = session.request({
        ...groupHeaders(req.headers, true),
        ":method": "GET",
        ":path": `${url.pathname}${url.search}`,
      });
      let status = 0;
      let location: string | undefined;
      stream.on("response", (headers) => {
        status = Number(headers[":status"] ?? 0);
        if (typeof headers.location === "string") location = headers.location;
      });
      stream.on("data", () => {});
      stream.on("end", () => resolve(location ? { status, location } : { status }));
      stream.on("error", reject);
      stream.end();
    },
  );
}
