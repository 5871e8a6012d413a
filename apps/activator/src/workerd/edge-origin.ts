import type { Clock } from "@thaw/clock";
import {
  type ActivateResponse,
  checkScaleSecret,
  ErrorCode,
  scaleRequest,
  sendScaleWebhook,
} from "@thaw/protocol";
import type { ConfigIssue } from "../revisions-json.js";
import type { WorkerEnv } from "./env.js";

/**
 * How the edge wakes an origin (CONTRACTS.md, "Origins"): (a) a Thaw origin (`thaw up`, or a cluster's
 * hook/activator) through its authenticated `POST /v1/activate`, or (b) any platform through the signed
 * scale webhook, after which the revision's `endpoints` are probed here.
 */
export type EdgeOrigin =
  | { kind: "thaw"; url: string; token: string }
  | { kind: "webhook"; url: string; secret: string };

/** Knative's ceiling on a revision's timeout, and so on how long a wake may take (10 minutes). */
export const MAX_TIMEOUT_SECONDS = 600;

/** What one wake came to, in the shape of the Durable Object's RPC answers. */
export type WakeResult =
  | { ok: true; endpoints: string[]; coldStart: boolean; waitedMs: number }
  | { ok: false; code: string; message: string };

function absoluteUrl(v: string, path: string, issues: ConfigIssue[]): boolean {
  try {
    const u = new URL(v);
    if (u.protocol === "http:" || u.protocol === "https:") return true;
  } catch {}
  issues.push({ path, message: `must be an absolute http(s) URL, got ${JSON.stringify(v)}` });
  return false;
}

/** Reads the one origin the vars name; both or neither set is an issue that says which to set. */
export function readEdgeOrigin(env: WorkerEnv, issues: ConfigIssue[]): EdgeOrigin | undefined {
  const thaw = env.THAW_ORIGIN_URL ?? "";
  const hook = env.SCALE_WEBHOOK_URL ?? "";
  if ((thaw === "") === (hook === "")) {
    issues.push({
      path: "THAW_ORIGIN_URL / SCALE_WEBHOOK_URL",
      message:
        "set exactly one: THAW_ORIGIN_URL (+ THAW_ORIGIN_TOKEN) for a Thaw origin, or SCALE_WEBHOOK_URL (+ SCALE_WEBHOOK_SECRET) for any other platform",
    });
    return undefined;
  }
  if (thaw !== "") {
    if (!absoluteUrl(thaw, "THAW_ORIGIN_URL", issues)) return undefined;
    const token = env.THAW_ORIGIN_TOKEN ?? "";
    if (token === "") {
      issues.push({
        path: "THAW_ORIGIN_TOKEN",
        message: "must be the origin's token (thaw.config.yaml `token`): its /v1/activate needs it",
      });
      return undefined;
    }
    return { kind: "thaw", url: thaw, token };
  }
  if (!absoluteUrl(hook, "SCALE_WEBHOOK_URL", issues)) return undefined;
  const bad = checkScaleSecret(env.SCALE_WEBHOOK_SECRET, "SCALE_WEBHOOK_SECRET");
  if (bad) {
    issues.push(bad);
    return undefined;
  }
  return { kind: "webhook", url: hook, secret: env.SCALE_WEBHOOK_SECRET as string };
}

/** The origin, or why there is none (a message naming the vars). */
export type OriginOrIssue = { ok: true; value: EdgeOrigin } | { ok: false; message: string };

const originByEnv = new WeakMap<WorkerEnv, OriginOrIssue>();

/** {@link readEdgeOrigin} once per env object (an isolate's bindings do not change). */
export function originFromEnv(env: WorkerEnv): OriginOrIssue {
  let o = originByEnv.get(env);
  if (!o) {
    const issues: ConfigIssue[] = [];
    const v = readEdgeOrigin(env, issues);
    o = v
      ? { ok: true, value: v }
      : {
          ok: false,
          message: `activator misconfigured: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
        };
    originByEnv.set(env, o);
  }
  return o;
}

/** Origin (a): one `POST /v1/activate` to the Thaw origin; its answer (or silence) as a value. */
export async function activateAtThawOrigin(
  origin: Extract<EdgeOrigin, { kind: "thaw" }>,
  rev: { namespace: string; name: string },
  timeoutMs: number,
): Promise<WakeResult> {
  const where = new URL("/v1/activate", origin.url).toString();
  let res: Response;
  try {
    res = await fetch(where, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${origin.token}` },
      body: JSON.stringify({ ...rev, timeoutMs }),
      // The origin answers 504 at timeoutMs itself; this only bounds an origin that never answers.
      signal: AbortSignal.timeout(timeoutMs + 2000),
    });
  } catch (err) {
    return {
      ok: false,
      code: ErrorCode.ERR_UPSTREAM,
      message: `Thaw origin unreachable at ${where}: ${String(err)}`,
    };
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {}
  if (res.status === 200) {
    const a = json as Partial<ActivateResponse> | undefined;
    if (Array.isArray(a?.endpoints)) {
      return { ok: true, endpoints: a.endpoints, coldStart: a.coldStart === true, waitedMs: a.waitedMs ?? 0 };
    }
  }
  const e = (json as { error?: { code?: string; message?: string; detail?: string } } | undefined)?.error;
  // The origin knows its revision is failing (the app exits, listens on the wrong port): pass its cause on,
  // so the edge answers now with it instead of waiting for the revision's timeout.
  if (res.status === 503 && e?.code === ErrorCode.ERR_REVISION_FAILED) {
    return {
      ok: false,
      code: ErrorCode.ERR_REVISION_FAILED,
      message: e.detail ?? e.message ?? text.slice(0, 200),
    };
  }
  const code =
    res.status === 504
      ? ErrorCode.ERR_DEADLINE
      : res.status === 404
        ? ErrorCode.ERR_UNKNOWN_REVISION
        : ErrorCode.ERR_UPSTREAM;
  const why = res.status === 401 ? " (THAW_ORIGIN_TOKEN is not the origin's token)" : "";
  return {
    ok: false,
    code,
    message: `Thaw origin answered ${res.status}${why}: ${e?.message ?? text.slice(0, 200)}`,
  };
}

/** Origin (b): the signed `thaw.scale/v1` request, retried with backoff; rejects once every try failed. */
export async function sendScale(
  origin: Extract<EdgeOrigin, { kind: "webhook" }>,
  rev: { namespace: string; name: string },
  desiredScale: number,
  reason: string,
  clock: Clock,
): Promise<void> {
  await sendScaleWebhook({
    url: origin.url,
    secret: origin.secret,
    request: scaleRequest({ ...rev, desiredScale, reason }, clock.now()),
    fetch: (r) => fetch(r),
    clock,
  });
}

/**
 * A plain HTTP readiness probe for a bare app with no queue-proxy in front (`readinessPath` in REVISIONS):
 * ready on any 2xx, the way a Kubernetes httpGet probe reads it.
 */
export async function plainProbe(
  dest: string,
  path: string,
  signal: AbortSignal,
): Promise<{ healthy: boolean; notMesh: boolean; error?: Error }> {
  try {
    const res = await fetch(`http://${dest}${path}`, {
      headers: { "user-agent": "thaw-edge-probe" },
      signal,
    });
    await res.body?.cancel();
    if (res.status >= 200 && res.status < 300) return { healthy: true, notMesh: true };
    return {
      healthy: false,
      notMesh: true,
      error: new Error(`GET ${path} on ${dest} answered ${res.status}`),
    };
  } catch (err) {
    return { healthy: false, notMesh: false, error: err instanceof Error ? err : new Error(String(err)) };
  }
}

/**
 * The reason a queue probe failed, with the fix when the endpoint is clearly not a queue-proxy (it
 * answered, but not as one): point it at a thaw-queue-proxy or give the revision a `readinessPath`.
 */
export function probeHint(error: Error | undefined): string {
  if (!error) return "";
  const m = error.message;
  if (/unexpected (status (?!50[23])\d+|body)/.test(m)) {
    return `${m}: this endpoint answers HTTP but not as a queue-proxy (K-Network-Probe: queue); put a thaw-queue-proxy in front of it, or set "readinessPath" (e.g. "/healthz") on the revision in REVISIONS for a plain HTTP readiness probe`;
  }
  return m;
}
