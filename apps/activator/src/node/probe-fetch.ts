import type { FetchLike } from "@thaw/activation";
import { BODY_NONE, type H1Client, type ResponseFields, type UpstreamSink } from "@thaw/queue-proxy/http1";

/** A probe answer longer than this is not a queue-proxy's: the probe fails without reading the rest. */
const MAX_PROBE_BODY_BYTES = 64 * 1024;

/**
 * The backend prober's fetch on Node, over the pods' HTTP/1 pools (the forwards' keep-alive connections):
 * unlike `fetch`, it sends a `host` header as the request's Host (the passthrough-LB probe's
 * `<rev>-private.<ns>`, knative-spec P2) instead of the URL's authority. Plain `http:` URLs only, the only
 * ones the Node prober makes.
 */
export function createProbeFetch(client: Pick<H1Client, "dispatch">): FetchLike {
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input);
      if (url.protocol !== "http:") {
        reject(new TypeError(`probe: only http: URLs are supported, got ${url.protocol}`));
        return;
      }
      const signal = init.signal ?? undefined;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const headers: string[] = [];
      new Headers(init.headers).forEach((v, k) => {
        headers.push(k, v);
      });
      const sink = new ProbeSink(resolve, reject, signal);
      client.dispatch(
        `${url.hostname}:${url.port || "80"}`,
        {
          method: init.method ?? "GET",
          path: url.pathname + url.search,
          headers,
          body: null,
          framing: BODY_NONE,
        },
        sink,
      );
    });
}

/** Gathers one probe answer (status and a short body) into a Response. */
class ProbeSink implements UpstreamSink {
  #abort: ((err?: Error) => void) | undefined;
  #status = 0;
  #chunks: Buffer[] = [];
  #size = 0;
  #done = false;
  readonly #onAbort = () => this.#fail(this.signal?.reason, true);

  constructor(
    private readonly resolve: (res: Response) => void,
    private readonly reject: (err: unknown) => void,
    private readonly signal: AbortSignal | undefined,
  ) {
    signal?.addEventListener("abort", this.#onAbort, { once: true });
  }

  onConnect(abort: (err?: Error) => void): void {
    this.#abort = abort;
  }

  startResponse(status: number, _fields: ResponseFields): boolean {
    if (this.#done) return false;
    this.#status = status;
    return true;
  }

  resumeWith(): void {}

  onData(chunk: Buffer): boolean {
    if (this.#done) return false;
    this.#size += chunk.length;
    if (this.#size > MAX_PROBE_BODY_BYTES) {
      this.#fail(new Error(`probe answer longer than ${MAX_PROBE_BODY_BYTES} bytes`), true);
      return false;
    }
    // A view of the client's shared read buffer: keep a copy.
    this.#chunks.push(Buffer.from(chunk));
    return true;
  }

  onComplete(): void {
    if (this.#done) return;
    this.#end();
    const status = this.#status;
    // A Response cannot carry a body with these statuses; the prober only reads status and text.
    const empty = status === 204 || status === 205 || status === 304;
    try {
      this.resolve(new Response(empty ? null : Buffer.concat(this.#chunks), { status }));
    } catch (err) {
      this.reject(err);
    }
  }

  onError(err: Error): void {
    this.#fail(err, false);
  }

  #fail(err: unknown, abort: boolean): void {
    if (this.#done) return;
    this.#end();
    if (abort) this.#abort?.();
    this.reject(err);
  }

  #end(): void {
    this.#done = true;
    this.signal?.removeEventListener("abort", this.#onAbort);
  }
}
