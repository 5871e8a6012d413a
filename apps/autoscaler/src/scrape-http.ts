import { Agent, get } from "node:http";
import { decodeStat, PROTOBUF_CONTENT_TYPE, STAT_SCRAPE_MAX_BYTES } from "@thaw/protocol";
import { SCRAPE_TIMEOUT_MS, type ScrapeResult } from "./scrape.js";

/** One keep-alive connection per pod, reused by every scrape: a scrape each second never reconnects. */
const agent = new Agent({ keepAlive: true, maxSockets: 1, keepAliveMsecs: 1000 });

/**
 * {@link scrapeStat}'s contract (f.1: `Accept: application/protobuf`, non-2xx and other content types are
 * errors, only the first 336 bytes decoded) over node:http with a keep-alive agent instead of fetch: the autoscaler's
 * default, because fetch's Request, Response and web streams cost almost 2x the CPU per scrape
 * (bench/scrape.mjs scrapes 1,000 pods every second).
 */
export function httpScrapeStat(url: string, timeoutMs = SCRAPE_TIMEOUT_MS): Promise<ScrapeResult> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: ScrapeResult) => {
      if (done) return;
      done = true;
      resolve(r);
    };
    const fail = (error: string, maybeMesh = false) =>
      finish({ ok: false, error: `GET ${url}: ${error}`, maybeMesh });
    let req: ReturnType<typeof get>;
    try {
      req = get(url, { agent, headers: { accept: PROTOBUF_CONTENT_TYPE }, timeout: timeoutMs }, (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          res.resume();
          return fail(`status ${status}`, status === 502 || status === 503);
        }
        const type = (res.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
        if (type !== PROTOBUF_CONTENT_TYPE) {
          res.resume();
          return fail(`unsupported content type ${JSON.stringify(type)}`);
        }
        // Like Go's LimitReader: the first 336 bytes are decoded and the rest is never read.
        const chunks: Buffer[] = [];
        let size = 0;
        const decode = () => {
          const decoded = decodeStat(new Uint8Array(Buffer.concat(chunks)));
          if (!decoded.ok) fail(decoded.issue.message);
          else finish({ ok: true, stat: decoded.value });
        };
        res.on("data", (c: Buffer) => {
          if (done) return;
          const take = Math.min(c.length, STAT_SCRAPE_MAX_BYTES - size);
          chunks.push(take < c.length ? c.subarray(0, take) : c);
          size += take;
          if (take < c.length) {
            decode();
            req.destroy();
          }
        });
        res.on("end", decode);
        res.on("error", (err) => fail(`reading body: ${err.message}`));
      });
    } catch (err) {
      fail(err instanceof Error ? err.message : String(err));
      return;
    }
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (err) => fail((err as { code?: string }).code ?? err.message));
  });
}
