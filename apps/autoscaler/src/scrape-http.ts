import { decodeStat, PROTOBUF_CONTENT_TYPE, STAT_SCRAPE_MAX_BYTES } from "@thaw/protocol";
import {
  BODY_NONE,
  type DialPolicy,
  fieldList,
  H1Client,
  type ResponseHeaders,
  type UpstreamSink,
} from "@thaw/queue-proxy/http1";
import { SCRAPE_TIMEOUT_MS, type ScrapeResult } from "./scrape.js";

/** One dial attempt within the scrape's own timeout: a pod that does not answer is tried at the next round. */
const ONE_DIAL: DialPolicy = {
  initialTimeoutMs: SCRAPE_TIMEOUT_MS,
  factor: 1,
  steps: 1,
  jitter: 0,
  sleepMinMs: 0,
  sleepMaxMs: 0,
};

/** A pod's pool unused this long is closed (a pod that went away is scraped no more). */
const IDLE_POOL_MS = 30_000;

/** One keep-alive connection per pod, reused by every scrape: a scrape each second never reconnects. */
const client = new H1Client({ maxConnectionsPerHost: 1, dial: ONE_DIAL });
/** Per scrape URL: the pool it goes to and the path it asks for (parsed once). */
const targets = new Map<string, { dest: string; path: string } | string>();
const lastUse = new Map<string, number>();
let lastSweep = 0;

/** `url` as a pool destination and a path, or why it cannot be scraped. */
function targetOf(url: string): { dest: string; path: string } | string {
  let t = targets.get(url);
  if (t !== undefined) return t;
  try {
    const u = new URL(url);
    t =
      u.protocol === "http:"
        ? { dest: `${u.hostname}:${u.port || "80"}`, path: `${u.pathname}${u.search}` }
        : `unsupported protocol ${u.protocol}`;
  } catch {
    t = "not a URL";
  }
  targets.set(url, t);
  return t;
}

/** Closes the pools, and forgets the URLs, of pods not scraped for {@link IDLE_POOL_MS}. */
function sweep(now: number): void {
  if (now - lastSweep < IDLE_POOL_MS) return;
  lastSweep = now;
  for (const [dest, at] of lastUse) {
    if (now - at < IDLE_POOL_MS) continue;
    lastUse.delete(dest);
    client.drop(dest);
  }
  for (const [url, t] of targets) if (typeof t === "string" || !lastUse.has(t.dest)) targets.delete(url);
}

/** One scrape's answer, read as it arrives: status and content type checked, the first 336 bytes kept. */
class ScrapeSink implements UpstreamSink {
  #abort: ((err?: Error) => void) | undefined;
  #failure: { error: string; maybeMesh: boolean } | undefined;
  readonly #body = Buffer.allocUnsafe(STAT_SCRAPE_MAX_BYTES);
  #size = 0;
  #done = false;
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly url: string,
    private readonly resolve: (r: ScrapeResult) => void,
    timeoutMs: number,
  ) {
    this.#timer = setTimeout(() => {
      this.#finish({ ok: false, error: `GET ${url}: timeout`, maybeMesh: false });
      this.#abort?.(new Error("timeout"));
    }, timeoutMs);
  }

  onConnect(abort: (err?: Error) => void): void {
    this.#abort = abort;
  }

  startResponse(status: number, headers: ResponseHeaders): boolean {
    if (status < 200 || status >= 300) {
      this.#failure = { error: `status ${status}`, maybeMesh: status === 502 || status === 503 };
      return true;
    }
    const fields = fieldList(headers);
    let type = "";
    for (let i = 0; i < fields.length; i += 2)
      if ((fields[i] as string).toLowerCase() === "content-type") type = fields[i + 1] as string;
    type = (type.split(";")[0] ?? "").trim().toLowerCase();
    if (type !== PROTOBUF_CONTENT_TYPE)
      this.#failure = { error: `unsupported content type ${JSON.stringify(type)}`, maybeMesh: false };
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#failure !== undefined || this.#done) return true;
    // Like Go's LimitReader: the first 336 bytes are decoded and the rest is never read.
    const take = Math.min(chunk.length, STAT_SCRAPE_MAX_BYTES - this.#size);
    chunk.copy(this.#body, this.#size, 0, take);
    this.#size += take;
    if (take < chunk.length) {
      this.#decode();
      this.#abort?.();
    }
    return true;
  }

  onComplete(): void {
    if (this.#failure !== undefined)
      this.#finish({
        ok: false,
        error: `GET ${this.url}: ${this.#failure.error}`,
        maybeMesh: this.#failure.maybeMesh,
      });
    else this.#decode();
  }

  onError(err: Error): void {
    const code = (err as { code?: string }).code;
    this.#finish({ ok: false, error: `GET ${this.url}: ${code ?? err.message}`, maybeMesh: false });
  }

  resumeWith(): void {}

  #decode(): void {
    const decoded = decodeStat(new Uint8Array(this.#body.buffer, this.#body.byteOffset, this.#size));
    this.#finish(
      decoded.ok
        ? { ok: true, stat: decoded.value }
        : { ok: false, error: `GET ${this.url}: ${decoded.issue.message}`, maybeMesh: false },
    );
  }

  #finish(r: ScrapeResult): void {
    if (this.#done) return;
    this.#done = true;
    clearTimeout(this.#timer);
    this.resolve(r);
  }
}

/**
 * {@link scrapeStat}'s contract (f.1: `Accept: application/protobuf`, non-2xx and other content types are
 * errors, only the first 336 bytes decoded) over the queue-proxy's own keep-alive HTTP/1.1 client
 * (`@thaw/queue-proxy/http1`) instead of fetch or node:http: the autoscaler's default, because a scrape is
 * then a head written and an answer parsed, with no request and response objects and streams around them
 * (bench/scrape.mjs scrapes 1,000 pods every second).
 */
export function httpScrapeStat(url: string, timeoutMs = SCRAPE_TIMEOUT_MS): Promise<ScrapeResult> {
  const target = targetOf(url);
  if (typeof target === "string")
    return Promise.resolve({ ok: false, error: `GET ${url}: ${target}`, maybeMesh: false });
  const now = Date.now();
  lastUse.set(target.dest, now);
  sweep(now);
  return new Promise((resolve) => {
    client.dispatch(
      target.dest,
      {
        method: "GET",
        path: target.path,
        headers: ["accept", PROTOBUF_CONTENT_TYPE],
        body: null,
        framing: BODY_NONE,
      },
      new ScrapeSink(url, resolve, timeoutMs),
    );
  });
}
