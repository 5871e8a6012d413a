/**
 * TEMPORARY: the CONTRACTS.md shapes of @thaw/protocol that have not landed on main yet. Every use in the
 * app goes through this one file so the switch to the real package is a change of imports here only.
 */
import type { RevisionKey } from "./ports.js";

/** Stable error codes (CONTRACTS.md). */
export const ErrorCode = {
  queueFull: "ERR_QUEUE_FULL",
  deadline: "ERR_DEADLINE",
  cancelled: "ERR_CANCELLED",
  unknownRevision: "ERR_UNKNOWN_REVISION",
  activationTimeout: "ERR_ACTIVATION_TIMEOUT",
  upstream: "ERR_UPSTREAM",
  unauthorized: "ERR_UNAUTHORIZED",
  noBackends: "ERR_NO_BACKENDS",
  badRequest: "ERR_BAD_REQUEST",
} as const;

const STATUS: Record<string, number> = {
  ERR_QUEUE_FULL: 503,
  ERR_DEADLINE: 503,
  ERR_ACTIVATION_TIMEOUT: 504,
  ERR_UNKNOWN_REVISION: 404,
  ERR_UPSTREAM: 502,
  ERR_UNAUTHORIZED: 401,
  ERR_NO_BACKENDS: 503,
  ERR_BAD_REQUEST: 400,
  ERR_CANCELLED: 500,
};

/** The one mapping of error codes to HTTP statuses (500 for anything else). */
export function httpStatusFor(code: string): number {
  return STATUS[code] ?? 500;
}

/** POST /v1/activate body. */
export interface ActivateRequest {
  namespace: string;
  name: string;
  timeoutMs: number;
}
/** 200 answer of /v1/activate. */
export interface ActivateResponse {
  namespace: string;
  name: string;
  endpoints: string[];
  coldStart: boolean;
  waitedMs: number;
}
/** Error body of every non-2xx JSON answer. */
export interface ApiError {
  error: { code: string; message: string };
}
/** One `endpoints` event of /v1/watch. */
export interface EndpointsEvent {
  namespace: string;
  name: string;
  endpoints: string[];
  mode: "proxy" | "serve";
}

/** Validates a /v1/activate body. */
export function parseActivateRequest(
  body: unknown,
): { ok: true; value: ActivateRequest } | { ok: false; issues: { path: string; message: string }[] } {
  const issues: { path: string; message: string }[] = [];
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { ok: false, issues: [{ path: "", message: "body must be a JSON object" }] };
  }
  const b = body as Record<string, unknown>;
  for (const f of ["namespace", "name"] as const) {
    if (typeof b[f] !== "string" || b[f] === "")
      issues.push({ path: f, message: `${f} must be a non-empty string` });
  }
  if (typeof b.timeoutMs !== "number" || !Number.isFinite(b.timeoutMs) || b.timeoutMs <= 0) {
    issues.push({ path: "timeoutMs", message: "timeoutMs must be a positive number of milliseconds" });
  }
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    value: { namespace: b.namespace as string, name: b.name as string, timeoutMs: b.timeoutMs as number },
  };
}

/** Revision from `Knative-Serving-Namespace`/`-Revision`, else from a `<name>.<ns>.svc.<domain>` host. */
export function revisionFromRequest(headers: Headers): RevisionKey | undefined {
  const namespace = headers.get("knative-serving-namespace") ?? "";
  const name = headers.get("knative-serving-revision") ?? "";
  if (namespace !== "" && name !== "") return { namespace, name };
  const host = (headers.get("host") ?? "").replace(/:\d+$/, "");
  const parts = host.split(".");
  if (parts.length >= 4 && parts[2] === "svc" && parts[0] && parts[1])
    return { namespace: parts[1], name: parts[0] };
  return undefined;
}

/** Go's html.EscapeString: the activator probe handler escapes the value it echoes. */
function escapeHtml(s: string): string {
  return s.replace(
    /[&'<>"]/g,
    (ch) => ({ "&": "&amp;", "'": "&#39;", "<": "&lt;", ">": "&gt;", '"': "&#34;" })[ch] ?? ch,
  );
}

/** P4 hash echo: 200 with `K-Network-Hash` copied back, 400 when it is missing. */
export function networkProbeResponse(headers: Headers): Response {
  const hash = headers.get("k-network-hash") ?? "";
  if (hash === "") {
    return new Response('a probe request must contain a non-empty "K-Network-Hash" header', { status: 400 });
  }
  return new Response(null, { status: 200, headers: { "k-network-hash": hash } });
}

/** a.3 step 3: `K-Network-Probe: activator` -> 200 `activator`; another non-empty value -> 400. */
export function activatorProbeResponse(value: string): Response {
  if (value === "activator") return new Response("activator", { status: 200 });
  return new Response(`unexpected probe header value: "${escapeHtml(value)}"`, { status: 400 });
}

/** networking's kubelet check: `kube-probe/` user agent or a non-empty `K-Kubelet-Probe`. */
export function isKubeletProbe(headers: Headers): boolean {
  return (
    (headers.get("user-agent") ?? "").startsWith("kube-probe/") ||
    (headers.get("k-kubelet-probe") ?? "") !== ""
  );
}

const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

/**
 * Headers for the forward to a pod (d.1): `K-Original-Host` <- Host unless already set, `K-Proxy-Request:
 * activator`, revision headers and hop-by-hop headers removed.
 */
export function prepareForwardHeaders(incoming: Headers, host: string): Headers {
  const out = new Headers(incoming);
  for (const h of (incoming.get("connection") ?? "").split(",")) if (h.trim()) out.delete(h.trim());
  for (const h of HOP_BY_HOP) out.delete(h);
  if (!out.has("k-original-host") && host !== "") out.set("k-original-host", host);
  out.delete("host");
  out.set("k-proxy-request", "activator");
  out.delete("knative-serving-revision");
  out.delete("knative-serving-namespace");
  return out;
}

/** Drops hop-by-hop headers from a pod's answer before it goes back to the client. */
export function responseHeaders(upstream: Headers): Headers {
  const out = new Headers(upstream);
  for (const h of HOP_BY_HOP) out.delete(h);
  return out;
}
