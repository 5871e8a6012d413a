import {
  decodeStat,
  PROTOBUF_CONTENT_TYPE,
  readCapped,
  STAT_SCRAPE_MAX_BYTES,
  type Stat,
} from "@thaw/protocol";

/** Knative's scrape HTTP timeout (e.1). */
export const SCRAPE_TIMEOUT_MS = 3000;

/** One scrape's outcome. `maybeMesh` marks the 502/503 answers a service mesh gives for unreachable pods. */
export type ScrapeResult = { ok: true; stat: Stat } | { ok: false; error: string; maybeMesh: boolean };

/** Options of {@link scrapeStat}. */
export interface ScrapeOptions {
  fetch?: (input: Request) => Promise<Response>;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * `GET <url>` with `Accept: application/protobuf` and decodes the queue-proxy's `Stat` (f.1): non-2xx and any
 * other content type are errors, and at most 336 bytes are read so a broken pod cannot flood the autoscaler.
 */
export async function scrapeStat(url: string, opts: ScrapeOptions = {}): Promise<ScrapeResult> {
  const doFetch = opts.fetch ?? ((r: Request) => fetch(r));
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? SCRAPE_TIMEOUT_MS);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  let res: Response;
  try {
    res = await doFetch(new Request(url, { headers: { accept: PROTOBUF_CONTENT_TYPE }, signal }));
  } catch (err) {
    return { ok: false, error: `GET ${url}: ${describe(err)}`, maybeMesh: false };
  }
  if (res.status < 200 || res.status >= 300) {
    await res.body?.cancel();
    return {
      ok: false,
      error: `GET ${url}: status ${res.status}`,
      maybeMesh: res.status === 502 || res.status === 503,
    };
  }
  const type = (res.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== PROTOBUF_CONTENT_TYPE) {
    await res.body?.cancel();
    return {
      ok: false,
      error: `GET ${url}: unsupported content type ${JSON.stringify(type)}`,
      maybeMesh: false,
    };
  }
  let bytes: Uint8Array;
  try {
    bytes = (await readCapped(res.body, STAT_SCRAPE_MAX_BYTES)).bytes;
  } catch (err) {
    return { ok: false, error: `GET ${url}: reading body: ${describe(err)}`, maybeMesh: false };
  }
  const decoded = decodeStat(bytes);
  if (!decoded.ok) return { ok: false, error: `GET ${url}: ${decoded.issue.message}`, maybeMesh: false };
  return { ok: true, stat: decoded.value };
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? err.message;
  }
  return String(err);
}
