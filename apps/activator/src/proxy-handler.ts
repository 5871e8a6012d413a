import {
  callerDeadlineMs,
  deliveredIo,
  expectedStartMs,
  outwaitsCaller,
  retryAfterSeconds,
} from "@thaw/activation";
import {
  APP_FAILED_HEADER,
  APP_UNREACHED_HEADER,
  activatorUpstreamHeaders,
  ErrorCode,
  errorTextResponse,
  httpStatusFor,
  isAppFailed,
  isAppUnreached,
  passthroughLbHeaders,
  revisionKey,
  stripHopByHop,
} from "@thaw/protocol";
import { NO_BODY, prepareBody } from "./body.js";
import {
  type ActivatorDeps,
  type Lease,
  type RevisionConfig,
  type RevisionGate,
  type RevisionKey,
  silentLogger,
  UpstreamError,
  type UpstreamResponse,
} from "./ports.js";
import { type BodyMode, canReplay } from "./replay-policy.js";
import { RequestTimer } from "./request-timer.js";
import type { Telemetry } from "./telemetry.js";
import { traceColdStart, traced, withTraceContext } from "./trace-spans.js";
import { trackBody } from "./track-body.js";

/** Forward attempts per request, the first included; the request's own timers bound them too. */
const MAX_ATTEMPTS = 8;
const REPLAY_BACKOFF_MS = 25;

/** Knative's body for a request that ran out of time. */
export const TIMEOUT_BODY = "activator request timeout";

/**
 * The activation path for one request (knative-spec d.1): reporter -> timers (the wait counts) -> a slot on a
 * healthy pod -> forward; a forward that fails with no answer is replayed on another pod when that is safe.
 * `handedOff`: another path took the request and counted it (received, and in the reporter until it ends).
 */
export async function proxyRequest(
  req: Request,
  key: RevisionKey,
  config: RevisionConfig,
  deps: ActivatorDeps,
  telemetry: Telemetry,
  handedOff = false,
): Promise<Response> {
  const { clock, reporter } = deps;
  const log = deps.logger ?? silentLogger;
  const arrived = clock.now();
  if (!handedOff) {
    reporter.requestIn(key, arrived);
    telemetry.received(key);
  }
  // The one check tracing costs when off; every span below hangs off this one.
  const span = deps.tracer
    ? deps.tracer.startSpan("activator.request", (n) => req.headers.get(n), "server", {
        "http.request.method": req.method,
        "thaw.revision": `${key.namespace}/${key.name}`,
      })
    : undefined;
  let reported = false;
  let status = 0;
  const out = () => {
    if (reported) return;
    reported = true;
    reporter.requestOut(key, clock.now());
    if (span) {
      span.setAttribute("http.response.status_code", status);
      span.end(status >= 500 ? `HTTP ${status}` : undefined);
    }
  };
  const gate = deps.coordinator.gate(key, config);
  const callerMs = callerDeadlineMs(req.headers);
  const expected = expectedStartMs(gate.recentColdStartsMs());
  if (gate.readyEndpoints().length === 0 && outwaitsCaller(callerMs, expected)) {
    // The caller gives up before the revision is expected up: answer now, and start it for the retry.
    gate.activate(expected as number).catch(() => {});
    const res = errorResponse(undefined, "deadline", gate, () => telemetry.rejected(key));
    status = res.status;
    out();
    return res;
  }
  const timer = new RequestTimer(clock, {
    totalMs: config.timeoutSeconds * 1000,
    responseStartMs: config.responseStartTimeoutSeconds * 1000,
    idleMs: config.idleTimeoutSeconds * 1000,
    ...(callerMs !== undefined ? { callerMs } : {}),
    clientSignal: req.signal,
  });
  const url = new URL(req.url);
  const upstreamHeaders = activatorUpstreamHeaders(req.headers, req.headers.get("host") ?? url.host);
  const headers = deps.passthroughLb ? passthroughLbHeaders(upstreamHeaders, key) : upstreamHeaders;
  const cold = gate.readyEndpoints().length === 0;
  span?.setAttribute("thaw.cold", cold);
  // The body's bytes count in the process's and the revision's budget until the pod answers or the request
  // ends otherwise (refused, timed out, client gone): `finally` below.
  const account = deps.bodyBudget?.open(revisionKey(key));
  try {
    const body =
      req.body === null
        ? NO_BODY
        : await withSignal(prepareBody(req.body, req.headers, config.bodyBufferCap, account), timer.signal);
    for (let attempt = 0; ; attempt++) {
      const waitStart = clock.now();
      const noPod = gate.readyEndpoints().length === 0;
      if (noPod) telemetry.queued(key);
      const queue = span?.child("thaw.queue", "internal", { "thaw.attempt": attempt });
      const lease = gate.tryAcquire?.() ?? (await traced(waited(gate, timer.signal), queue));
      const queuedMs = clock.now() - waitStart;
      if (queue) {
        if (noPod) traceColdStart(queue, gate.lastColdStart(), arrived);
        queue.setAttribute("thaw.queued_ms", queuedMs);
        queue.end();
      }
      let upstream: UpstreamResponse;
      const sentAt = clock.now();
      const hop = span?.child("thaw.forward", "client", {
        "server.address": lease.dest,
        "thaw.attempt": attempt,
      });
      try {
        upstream = await traced(
          deps.forward(lease.dest, {
            method: req.method,
            path: url.pathname + url.search,
            headers: hop ? withTraceContext(headers, hop) : headers,
            body: body.next(),
            signal: timer.signal,
          }),
          hop,
        );
        hop?.setAttribute("http.response.status_code", upstream.status);
        hop?.end();
        // The pod's queue-proxy says the app refused the connection: nothing reached the app, so this is
        // a forward that never happened, to be sent to another pod like a refused connection.
        if (isAppUnreached(upstream.status, upstream.headers)) {
          discard(upstream.body);
          throw new UpstreamError(`pod ${lease.dest}: the app refused the connection`, false);
        }
        // The app broke under the request before answering: sent, so the replay rules decide below.
        if (isAppFailed(upstream.status, upstream.headers) && replayable(req, body, true)) {
          discard(upstream.body);
          throw new UpstreamError(`pod ${lease.dest}: the app failed before answering`, true);
        }
      } catch (err) {
        lease.release();
        if (!(err instanceof UpstreamError) || timer.signal.aborted) throw err;
        gate.reportFailure(lease.dest);
        const replay = replayable(req, body, err.sent);
        log.warn("forward failed", { dest: lease.dest, attempt, replay, error: err.message });
        if (!replay || attempt + 1 >= MAX_ATTEMPTS) throw err;
        telemetry.replayed(key);
        // The first replay goes at once (another pod is likely there); later ones give the prober time.
        if (attempt > 0) await clock.sleep(REPLAY_BACKOFF_MS * 2 ** (attempt - 1), timer.signal);
        continue;
      }
      timer.started();
      if (upstream.status === 101 && upstream.raw) {
        // The socket now belongs to the client and the pod; the slot is not held for its lifetime.
        timer.done();
        lease.release();
        status = 101;
        out();
        return upstream.raw;
      }
      const h = stripHopByHop(new Headers(upstream.headers));
      h.delete(APP_UNREACHED_HEADER);
      h.delete(APP_FAILED_HEADER);
      if (cold || attempt > 0)
        h.append("server-timing", serverTiming(gate, arrived, queuedMs, clock.now() - sentAt));
      if (cold) noteFirstByte(telemetry, gate, key, arrived + queuedMs, clock.now());
      status = upstream.status;
      return respond(upstream, h, lease, timer, out);
    }
  } catch (err) {
    timer.done();
    const res = errorResponse(err, timer.expiry, gate, () => telemetry.rejected(key));
    status = res.status;
    out();
    return res;
  } finally {
    account?.release();
  }
}

/** The replay rules (replay-policy.ts) for this request after a failed forward. */
function replayable(req: Request, body: { mode: BodyMode; touched(): boolean }, sent: boolean): boolean {
  return canReplay({
    method: req.method,
    headers: req.headers,
    body: body.mode,
    sent,
    streamTouched: body.touched(),
  });
}

function respond(
  upstream: UpstreamResponse,
  headers: Headers,
  lease: Lease,
  timer: RequestTimer,
  out: () => void,
): Response {
  const finish = () => {
    timer.done();
    lease.release();
    out();
  };
  if (upstream.body === null || upstream.body instanceof Uint8Array) {
    finish();
    return new Response(upstream.body, { status: upstream.status, headers });
  }
  const body = trackBody(upstream.body, timer.signal, { onChunk: () => timer.wrote(), onEnd: finish });
  return new Response(body, { status: upstream.status, headers });
}

/**
 * A request that found the revision cold got its answer's head at `now`, having left the queue at
 * `released`: the first byte of the cold start it waited for (the telemetry tells each start's once).
 */
export function noteFirstByte(
  telemetry: Pick<Telemetry, "firstByte">,
  gate: Pick<RevisionGate, "lastColdStart">,
  key: RevisionKey,
  released: number,
  now: number,
): void {
  const phases = gate.lastColdStart();
  if (phases && phases.beganAt <= released) telemetry.firstByte(key, now, phases.beganAt);
}

/** The `Server-Timing` value of a cold or replayed answer: queued, the last cold start's phases, upstream. */
export function serverTiming(
  gate: RevisionGate,
  arrived: number,
  queuedMs: number,
  upstreamMs: number,
): string {
  const parts = [`queued;dur=${queuedMs}`];
  const phases = gate.lastColdStart();
  if (phases && phases.beganAt <= arrived + queuedMs) {
    parts.push(`scale;dur=${phases.scaleMs}`, `ready;dur=${phases.readyMs}`);
  }
  parts.push(`upstream;dur=${upstreamMs}`);
  return parts.join(", ");
}

/** The answer to a request that got no pod: 504 on the revision timeout, else Knative's error text. */
export function errorResponse(
  err: unknown,
  expiry: string | undefined,
  gate: RevisionGate,
  rejected: () => void,
): Response {
  if (expiry === "timeout") {
    return new Response(TIMEOUT_BODY, {
      status: 504,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
  const code =
    expiry === "deadline"
      ? ErrorCode.ERR_DEADLINE
      : expiry === "cancelled"
        ? ErrorCode.ERR_CANCELLED
        : (((err as { code?: unknown })?.code as string | undefined) ?? "");
  const message =
    expiry === "deadline" ? "context deadline exceeded" : err instanceof Error ? err.message : String(err);
  // Knative's plain-text answer (message + newline) with the status the code maps to.
  const res = errorTextResponse(code, message);
  if (httpStatusFor(code) === 503) {
    rejected();
    // A failing revision says when its next restart is; otherwise the measured cold starts do.
    const after = (err as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
    const seconds = typeof after === "number" ? after : retryAfterSeconds(gate.recentColdStartsMs());
    res.headers.set("retry-after", String(seconds));
  }
  return res;
}

/**
 * A slot after waiting for one, taken only once the I/O already received has run: a client that left
 * while queued (its signal fires then) gives the slot back unused and is never forwarded.
 */
async function waited(gate: RevisionGate, signal: AbortSignal): Promise<Lease> {
  const lease = await gate.acquire(signal);
  await deliveredIo();
  if (!signal.aborted) return lease;
  lease.release();
  throw signal.reason;
}

/**
 * Reads an answer that will not be used to its end (a queue-proxy's short error text), which also frees
 * its connection; cancelling Node's web-stream adapter mid-flow throws from inside Node instead.
 */
function discard(body: UpstreamResponse["body"]): void {
  if (body !== null && !(body instanceof Uint8Array)) void body.pipeTo(new WritableStream()).catch(() => {});
}

/** Rejects with the signal's reason when it fires before `p` settles. */
function withSignal<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}
