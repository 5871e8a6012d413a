import type { Clock } from "@thaw/clock";
import {
  type ActivateRequest,
  type ActivateResponse,
  type ApiError,
  ErrorCode,
  TRACEPARENT_HEADER,
  TRACESTATE_HEADER,
  type TraceCarrier,
} from "@thaw/protocol";

/** A fetch-shaped capability: global fetch, a Workers service binding's fetch, or a test double. */
export type FetchLike = (input: Request) => Promise<Response>;

/** What one activation call came to, as a value. */
export type ActivationOutcome =
  | { kind: "ready"; endpoints: string[]; coldStart: boolean }
  | { kind: "unknown"; message: string }
  /** `detail`: why the revision is not ready, as last seen (the activator's diagnosis), if known. */
  | { kind: "timeout"; retryAfterSeconds: number | undefined; message: string; detail?: string }
  /** The revision's pods are known to be failing; `message` is the cause. */
  | { kind: "failed"; retryAfterSeconds: number | undefined; message: string }
  | {
      kind: "unavailable";
      message: string;
      /** The activator could not be reached or failed (5xx): likely restarting, so worth a retry later. */
      transient?: true;
    };

/** The hook's view of the activator: one call that wakes a revision and waits for a ready pod. */
export interface ActivatorClient {
  /** `trace`: the hook's span to continue on the activator's side (tracing on only). */
  activate(req: ActivateRequest, trace?: TraceCarrier): Promise<ActivationOutcome>;
}

/** Options of {@link httpActivatorClient}. */
export interface HttpActivatorOptions {
  /** Base URL of the activator, e.g. `http://127.0.0.1:8089` (a binding can use any host). */
  baseUrl: string;
  fetch: FetchLike;
  clock: Clock;
  /** Bearer token for the activator's internal API. */
  token?: string;
  /** Extra time past `timeoutMs` before the hook gives up on an activator that never answers. */
  graceMs?: number;
}

/** Calls `POST /v1/activate` of CONTRACTS.md and turns every answer (or silence) into an outcome. */
export function httpActivatorClient(opts: HttpActivatorOptions): ActivatorClient {
  const url = new URL("/v1/activate", opts.baseUrl).toString();
  const grace = opts.graceMs ?? 1000;
  return {
    async activate(body, trace) {
      const ac = new AbortController();
      let timedOut = false;
      const timer = opts.clock.setTimeout(
        () => {
          timedOut = true;
          ac.abort(new Error("activation deadline"));
        },
        (body.timeoutMs ?? 0) + grace,
      );
      const headers = new Headers({ "content-type": "application/json" });
      if (opts.token) headers.set("authorization", `Bearer ${opts.token}`);
      if (trace) {
        headers.set(TRACEPARENT_HEADER, trace.traceparent);
        if (trace.tracestate) headers.set(TRACESTATE_HEADER, trace.tracestate);
      }
      try {
        const res = await opts.fetch(
          new Request(url, { method: "POST", headers, body: JSON.stringify(body), signal: ac.signal }),
        );
        return await outcomeOf(res);
      } catch (err) {
        if (timedOut) {
          return {
            kind: "timeout",
            retryAfterSeconds: undefined,
            message: "activator did not answer in time",
            detail: "the activator did not answer in time",
          };
        }
        return {
          kind: "unavailable",
          message: `activator unreachable at ${opts.baseUrl}: ${describe(err)}`,
          transient: true,
        };
      } finally {
        opts.clock.clearTimeout(timer);
      }
    },
  };
}

/** What an activator in this process answers to one activation: `/v1/activate`'s status, body and headers. */
export interface ActivateAnswerValue {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * An activator in the same process (`thaw up`): `/v1/activate`'s answer as a value, read as the HTTP client
 * reads the JSON, with no Request, body stream, JSON or timer between hook and activator. The activator's
 * own timeout (the request's `timeoutMs`) ends the wait.
 */
export function inProcessActivatorClient(
  call: (req: ActivateRequest, header: (name: string) => string | null) => Promise<ActivateAnswerValue>,
): ActivatorClient {
  return {
    async activate(body, trace) {
      // The trace context as the HTTP client would send it, for the activator's span to continue.
      const header = (name: string) =>
        name === TRACEPARENT_HEADER
          ? (trace?.traceparent ?? null)
          : name === TRACESTATE_HEADER
            ? (trace?.tracestate ?? null)
            : null;
      try {
        const a = await call(body, header);
        return outcomeOfAnswer(a.status, a.body, a.headers["retry-after"] ?? null);
      } catch (err) {
        return { kind: "unavailable", message: `activator failed: ${describe(err)}`, transient: true };
      }
    },
  };
}

async function outcomeOf(res: Response): Promise<ActivationOutcome> {
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return outcomeOfAnswer(res.status, json, res.headers.get("retry-after"));
}

/** One answer of `/v1/activate` (status, JSON body, Retry-After) as an outcome. */
function outcomeOfAnswer(status: number, json: unknown, retryAfter: string | null): ActivationOutcome {
  if (status === 200) {
    const endpoints = (json as Partial<ActivateResponse> | undefined)?.endpoints;
    if (!Array.isArray(endpoints) || !endpoints.every((e) => typeof e === "string")) {
      return { kind: "unavailable", message: "activator answered 200 without an endpoints list" };
    }
    // A copy: the hook keeps the list, and an in-process answer's is the activator's own.
    return {
      kind: "ready",
      endpoints: [...endpoints],
      coldStart: (json as ActivateResponse).coldStart === true,
    };
  }
  const err = (json as Partial<ApiError> | undefined)?.error;
  const message = typeof err?.message === "string" ? err.message : `HTTP ${status}`;
  const code = typeof err?.code === "string" ? err.code : "";
  const retryAfterSeconds = parseRetryAfter(retryAfter);
  if (status === 404 || code === ErrorCode.ERR_UNKNOWN_REVISION) return { kind: "unknown", message };
  if (status === 504 || code === ErrorCode.ERR_ACTIVATION_TIMEOUT) {
    const detail = typeof err?.detail === "string" && err.detail !== "" ? err.detail : undefined;
    return { kind: "timeout", retryAfterSeconds, message, ...(detail ? { detail } : {}) };
  }
  if (code === ErrorCode.ERR_REVISION_FAILED) {
    const cause = typeof err?.detail === "string" && err.detail !== "" ? err.detail : message;
    return { kind: "failed", retryAfterSeconds, message: cause };
  }
  if (status === 401) {
    return { kind: "unavailable", message: `activator refused the hook's credentials: ${message}` };
  }
  const failed = { kind: "unavailable", message: `activator answered ${status}: ${message}` } as const;
  return status >= 500 ? { ...failed, transient: true } : failed;
}

function parseRetryAfter(v: string | null): number | undefined {
  if (v === null || !/^\d+$/.test(v.trim())) return undefined;
  return Number(v.trim());
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    const c = cause instanceof Error ? ` (${(cause as { code?: string }).code ?? cause.message})` : "";
    return `${err.message}${c}`;
  }
  return String(err);
}
