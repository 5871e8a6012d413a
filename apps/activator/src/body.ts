import type { BodyAccount } from "@thaw/activation";
import type { BodyMode } from "./replay-policy.js";

/** A request body made ready for one or more forwards. */
export interface PreparedBody {
  mode: BodyMode;
  /** The body for the next attempt: the same bytes every time when buffered, the one stream otherwise. */
  next(): Uint8Array | ReadableStream<Uint8Array> | null;
  /** Whether bytes of a streamed body were pulled (it cannot be sent again). */
  touched(): boolean;
}

/** The prepared form of "no body". */
export const NO_BODY: PreparedBody = { mode: "none", next: () => null, touched: () => false };
const NONE = NO_BODY;

/** An account with no bound, for callers without a budget. */
const UNBOUNDED: BodyAccount = { take: () => true, release: () => {} };

/**
 * Keeps a body of at most `cap` bytes in memory so that a failed forward can be replayed, its bytes taken
 * from `account` (a {@link BodyBudget}'s, which bounds all held bodies together); a body that is larger (by
 * Content-Length, or found while reading) or does not fit the budget streams once, the bytes read so far
 * first. The caller releases `account` once the body is no longer needed (answered, refused, client gone);
 * a read that fails (the client left mid-body) releases it here.
 */
export async function prepareBody(
  body: ReadableStream<Uint8Array> | null,
  headers: Headers,
  cap: number,
  account: BodyAccount = UNBOUNDED,
): Promise<PreparedBody> {
  if (body === null) return NONE;
  const declared = Number(headers.get("content-length") ?? Number.NaN);
  const known = Number.isFinite(declared);
  // A declared length is taken whole before any byte is read: one that does not fit is left in the socket.
  if (known && (declared > cap || !account.take(declared))) return streamOnce([], body.getReader());
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
      // A chunked body is taken as it comes; the chunk that does not fit goes out first, untaken.
      if (size > cap || (!known && !account.take(value.byteLength))) return streamOnce(chunks, reader);
    }
  } catch (err) {
    account.release();
    throw err;
  }
  if (size === 0 && !known) return NONE;
  const bytes = concat(chunks, size);
  return { mode: "buffered", next: () => bytes, touched: () => false };
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function streamOnce(head: Uint8Array[], reader: ReadableStreamDefaultReader<Uint8Array>): PreparedBody {
  let pulled = false;
  const pending = [...head];
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        pulled = true;
        const first = pending.shift();
        if (first) {
          controller.enqueue(first);
          return;
        }
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
      // highWaterMark 0: nothing is pulled before a forward reads, so an unread body can still go elsewhere.
    },
    { highWaterMark: 0 },
  );
  return { mode: "stream", next: () => stream, touched: () => pulled };
}
