import { afterDeliveredIo } from "@thaw/activation";
import {
  APP_FAILED_HEADER,
  APP_UNREACHED_HEADER,
  fieldListReader,
  type Tracer,
  type TraceSpan,
  withCarrier,
} from "@thaw/protocol";
import type { H1Upstream } from "./h1-upstream.js";
import { h1FieldsFromH2 } from "./h2-to-h1.js";
import type { H2Upstream } from "./h2-upstream.js";
import { type Admission, BODY_CHUNKED, type Downstream, type StatsSink, type UpstreamSink } from "./ports.js";
import type { ResponseHeaders } from "./response-fields.js";
import type { Timed, TimeoutSweeper } from "./timeouts.js";
import { WaitSignal } from "./wait-signal.js";

/** Per-request observers that run when an exchange ends (metrics, request log). */
export interface ExchangeObserver {
  /** `status` is what the client got (0 when it went away first); `ms` the time since arrival. */
  done(ex: Exchange, status: number, ms: number): void;
}

/** What every exchange of one server shares. */
export interface ExchangeContext {
  /** Where HTTP/1 requests go (the keep-alive pool to the app). */
  upstream: Pick<H1Upstream, "dispatch">;
  /** Where HTTP/2 requests go (h2c to the app). */
  h2: H2Upstream | null;
  sweeper: TimeoutSweeper;
  stats: StatsSink | null;
  admission: Admission | null;
  observer: ExchangeObserver | null;
  /** Spans per proxied request (docs/tracing.md); absent = tracing off, one check per request. */
  tracer?: Tracer | undefined;
  now(): number;
}

const TIMEOUT_BODY = "request timeout";

/**
 * One proxied request: it is its own upstream sink and its own timeout-list entry, so the hot path
 * allocates little beyond this object.
 */
export class Exchange implements Timed, UpstreamSink {
  startedAt: number;
  lastWriteAt = 0;
  prevTimed: Timed | null = null;
  nextTimed: Timed | null = null;
  /** Counted in the request statistics (false for kubelet probes). */
  counted = false;
  /** This request's span when tracing is on (ended by the tracing observer). */
  span: TraceSpan | null = null;
  proxied = false;
  private abortUpstream: ((err?: Error) => void) | null = null;
  private resumeUpstream: (() => void) | null = null;
  private admitted = false;
  private waiting: WaitSignal | null = null;
  private ended = false;
  private status = 0;

  constructor(
    readonly ctx: ExchangeContext,
    /** The client side: request line and body, and where the response goes. */
    readonly client: Downstream,
    /** The request fields for the app (hop-by-hop and framing removed, K-Original-Host restored). */
    public headers: string[],
  ) {
    this.startedAt = ctx.now();
    client.onClose = this.onClientClose;
    client.onDrain = this.onDrain;
  }

  /** Runs the request: breaker (unless `bypass`), then the upstream call. */
  start(bypass: boolean): void {
    const { ctx } = this;
    if (ctx.tracer && !bypass) this.trace(ctx.tracer);
    ctx.sweeper.add(this);
    if (!bypass && ctx.stats) {
      this.counted = true;
      if (this.proxied) ctx.stats.proxiedIn(this.startedAt);
      else ctx.stats.requestIn(this.startedAt);
    }
    const gate = ctx.admission;
    if (bypass || gate === null) {
      this.dispatch();
      return;
    }
    if (gate.tryAcquire()) {
      this.admitted = true;
      this.dispatch();
      return;
    }
    // Only requests that must wait carry a signal (timeouts and client cancels end the wait).
    const waiting = new WaitSignal();
    this.waiting = waiting;
    const queued = this.span?.child("thaw.queue");
    gate.acquire(waiting.asSignal()).then(
      () => {
        queued?.end();
        this.waiting = null;
        // A client whose disconnect already reached the process is gone: its slot goes back, unused.
        afterDeliveredIo(() => {
          if (this.ended) {
            gate.release();
            return;
          }
          this.admitted = true;
          this.dispatch();
        });
      },
      (err: Error) => {
        queued?.end(err.message);
        this.waiting = null;
        if (this.ended) return;
        this.fail(err);
      },
    );
  }

  /** A span continuing the request's trace context; the app gets this span's context instead. */
  private trace(tracer: Tracer): void {
    const span = tracer.startSpan("queue-proxy.request", fieldListReader(this.headers), "server", {
      "http.request.method": this.client.method,
    });
    this.span = span;
    this.headers = withCarrier(this.headers, span.carrier());
  }

  private dispatch(): void {
    const { client } = this;
    const framing = client.bodyFraming;
    const body = framing > 0 || framing === BODY_CHUNKED ? client.body : null;
    if (client.http2 && this.ctx.h2) {
      // h2 frames by its streams; a given length still tells the app what to expect.
      const headers = framing >= 0 ? [...this.headers, "content-length", String(framing)] : this.headers;
      this.ctx.h2.dispatch(headers, body, this);
      return;
    }
    // An HTTP/2 client's request reaches an HTTP/1.1 app without its pseudo-headers.
    const headers = client.http2 ? h1FieldsFromH2(this.headers) : this.headers;
    this.ctx.upstream.dispatch({ path: client.target, method: client.method, headers, body, framing }, this);
  }

  /** Breaker refusal: queue full or deadline → 503 with the text, anything else → 500 (c.3). */
  private fail(err: Error & { code?: string }): void {
    if (err.code === "ERR_QUEUE_FULL" || err.code === "ERR_DEADLINE") this.reply(503, `${err.message}\n`);
    else this.reply(500, "");
  }

  private reply(status: number, body: string, extra: string[] = []): void {
    const { client } = this;
    if (!client.headersSent) {
      client.writeHead(status, [
        ...extra,
        "content-type",
        "text/plain; charset=utf-8",
        "x-content-type-options",
        "nosniff",
        "content-length",
        String(Buffer.byteLength(body)),
      ]);
    }
    client.end(body);
    this.finish(status);
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.ended) abort();
    else this.abortUpstream = abort;
  }

  startResponse(statusCode: number, headers: ResponseHeaders): boolean {
    if (this.ended) return false;
    this.status = statusCode;
    this.lastWriteAt = this.ctx.now();
    this.client.writeHead(statusCode, headers);
    return true;
  }

  resumeWith(resume: () => void): void {
    this.resumeUpstream = resume;
  }

  onData(chunk: Buffer): boolean {
    if (this.ended) return false;
    if (this.ctx.sweeper.idleWatched) this.lastWriteAt = this.ctx.now();
    return this.client.write(chunk);
  }

  onComplete(trailers?: Record<string, string | string[]>): void {
    if (this.ended) return;
    if (trailers) this.client.addTrailers?.(trailers);
    this.client.end();
    this.finish(this.status);
  }

  onError(err: Error, _unsent?: boolean, unanswered?: boolean): void {
    if (this.ended) return;
    // Knative answers 502 with the error text; once bytes went out, all it can do is cut the stream.
    // A connection the app refused or never accepted carried no byte of the request: say so, so the proxy
    // in front may send it to another pod whatever its method. One that broke before any byte of an answer
    // (the app died under it) is said too: the proxy may send it again as its replay rules allow.
    const code = (err as { code?: string }).code;
    const unreached = code === "ECONNREFUSED" || code === "ERR_DIAL_TIMEOUT";
    const marker = unreached ? [APP_UNREACHED_HEADER, "1"] : unanswered ? [APP_FAILED_HEADER, "1"] : [];
    if (!this.client.headersSent) this.reply(502, `${err.message}\n`, marker);
    else {
      this.client.destroy();
      this.finish(this.status);
    }
  }

  /** Timer fired (TimeoutSweeper): 504 `request timeout`, or end what was started. */
  timeout(): void {
    if (this.ended) return;
    const { client } = this;
    if (!client.headersSent) this.reply(504, TIMEOUT_BODY);
    else if (client.responseLength !== "") {
      client.destroy();
      this.finish(this.status);
    } else {
      client.end(TIMEOUT_BODY);
      this.finish(this.status);
    }
    // After finish(): an upstream may report the abort through onError, which must find the exchange ended.
    this.abortUpstream?.();
    this.waiting?.abort();
  }

  private readonly onDrain = (): void => {
    this.resumeUpstream?.();
  };

  private readonly onClientClose = (): void => {
    if (this.ended) return;
    // The client went away: stop the upstream call and write nothing (c.3).
    this.finish(0);
    this.abortUpstream?.();
    this.waiting?.abort();
  };

  private finish(status: number): void {
    if (this.ended) return;
    this.ended = true;
    const { ctx } = this;
    ctx.sweeper.remove(this);
    if (this.admitted) {
      this.admitted = false;
      ctx.admission?.release();
    }
    const now = ctx.now();
    if (this.counted) {
      if (this.proxied) ctx.stats?.proxiedOut(now);
      else ctx.stats?.requestOut(now);
    }
    ctx.observer?.done(this, status, now - this.startedAt);
  }
}
