/** The most the autoscaler's scraper reads of a queue-proxy's `/metrics` body (knative-spec.md f.1). */
export const STAT_SCRAPE_MAX_BYTES = 336;

/** The first bytes of a body and whether anything was left unread. */
export interface CappedBytes {
  bytes: Uint8Array;
  /** True when the body had more than the cap; the rest was not read. */
  truncated: boolean;
}

/**
 * Reads at most `maxBytes` of `body` and cancels the rest, as the scraper's limited reader does, so a
 * misbehaving pod cannot make the autoscaler buffer an arbitrarily large answer.
 */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number = STAT_SCRAPE_MAX_BYTES,
): Promise<CappedBytes> {
  if (!Number.isInteger(maxBytes) || maxBytes < 0) throw new RangeError(`maxBytes must be an integer >= 0`);
  if (!body) return { bytes: new Uint8Array(0), truncated: false };
  const out = new Uint8Array(maxBytes);
  let len = 0;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: out.subarray(0, len), truncated: false };
      const take = Math.min(value.length, maxBytes - len);
      out.set(value.subarray(0, take), len);
      len += take;
      if (take < value.length) {
        await reader.cancel();
        return { bytes: out.subarray(0, len), truncated: true };
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** Cuts an in-memory body to the scraper's cap (for bytes that were already read). */
export function capBytes(bytes: Uint8Array, maxBytes: number = STAT_SCRAPE_MAX_BYTES): CappedBytes {
  return bytes.length > maxBytes
    ? { bytes: bytes.subarray(0, maxBytes), truncated: true }
    : { bytes, truncated: false };
}
