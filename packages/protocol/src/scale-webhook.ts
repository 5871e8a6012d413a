import type { Issue } from "./activation-api.js";

/** The one body version every sender writes and every receiver accepts (CONTRACTS.md, "Scale webhook"). */
export const SCALE_WEBHOOK_VERSION = "thaw.scale/v1";

/** Header names of a signed scale webhook. */
export const ScaleWebhookHeader = {
  /** Unix time in whole seconds when the sender signed the body. */
  timestamp: "x-thaw-timestamp",
  /** `v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`. */
  signature: "x-thaw-signature",
} as const;

/** How far a timestamp may be from the receiver's clock, either way (5 minutes). */
export const SCALE_WEBHOOK_WINDOW_MS = 300_000;

/** Shortest shared secret a sender or receiver accepts. */
export const SCALE_WEBHOOK_MIN_SECRET = 16;

/** A scale request: "run `desiredScale` replicas of namespace/name", with why and when. */
export interface ScaleRequest {
  version: typeof SCALE_WEBHOOK_VERSION;
  namespace: string;
  name: string;
  /** Replicas wanted, a whole number >= 0. */
  desiredScale: number;
  /** For people and logs: `activation`, `edge-decider: ...`, `autoscaler: ...`. */
  reason: string;
  /** When the sender decided, ISO 8601 (UTC). */
  sentAt: string;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Builds the body for a decision taken at `nowMs`. */
export function scaleRequest(
  fields: Pick<ScaleRequest, "namespace" | "name" | "desiredScale" | "reason">,
  nowMs: number,
): ScaleRequest {
  return { version: SCALE_WEBHOOK_VERSION, ...fields, sentAt: new Date(nowMs).toISOString() };
}

/** Validates a parsed body; every issue names its field. Unknown fields are refused so typos show. */
export function parseScaleRequest(
  body: unknown,
): { ok: true; value: ScaleRequest } | { ok: false; issues: Issue[] } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return {
      ok: false,
      issues: [
        {
          path: "",
          message: "must be a JSON object {version, namespace, name, desiredScale, reason, sentAt}",
        },
      ],
    };
  }
  const b = body as Record<string, unknown>;
  const issues: Issue[] = [];
  if (b.version !== SCALE_WEBHOOK_VERSION) {
    issues.push({
      path: "version",
      message: `must be "${SCALE_WEBHOOK_VERSION}", got ${JSON.stringify(b.version) ?? "nothing"}`,
    });
  }
  for (const f of ["namespace", "name"] as const) {
    if (typeof b[f] !== "string" || !DNS_LABEL.test(b[f] as string)) {
      issues.push({ path: f, message: "must be a Kubernetes name (a-z, 0-9, '-', at most 63 characters)" });
    }
  }
  const d = b.desiredScale;
  if (typeof d !== "number" || !Number.isInteger(d) || d < 0 || d > 10_000) {
    issues.push({
      path: "desiredScale",
      message: `must be a whole number 0..10000, got ${JSON.stringify(d) ?? "nothing"}`,
    });
  }
  if (typeof b.reason !== "string" || b.reason.length > 500) {
    issues.push({ path: "reason", message: "must be a string of at most 500 characters" });
  }
  if (typeof b.sentAt !== "string" || Number.isNaN(Date.parse(b.sentAt))) {
    issues.push({ path: "sentAt", message: "must be an ISO 8601 time such as 2026-12-01T15:00:00.000Z" });
  }
  for (const k of Object.keys(b)) {
    if (!["version", "namespace", "name", "desiredScale", "reason", "sentAt"].includes(k)) {
      issues.push({
        path: k,
        message: "unknown field; allowed: version, namespace, name, desiredScale, reason, sentAt",
      });
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: b as unknown as ScaleRequest };
}

/** A problem with a configured secret, or undefined when it can sign. */
export function checkScaleSecret(secret: string | undefined, path: string): Issue | undefined {
  if (secret === undefined || secret.length < SCALE_WEBHOOK_MIN_SECRET) {
    return {
      path,
      message: `must be a shared secret of at least ${SCALE_WEBHOOK_MIN_SECRET} characters (e.g. openssl rand -hex 32)`,
    };
  }
  return undefined;
}

/** The key type of WebCrypto, named the same way on Node's and workerd's type sets. */
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
const keys = new Map<string, Promise<HmacKey>>();
const enc = new TextEncoder();

function hmacKey(secret: string): Promise<HmacKey> {
  let k = keys.get(secret);
  if (!k) {
    k = crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify",
    ]);
    keys.set(secret, k);
  }
  return k;
}

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The two headers that sign `body` at `nowMs` (WebCrypto: the same code on Node and workerd). */
export async function signScaleWebhook(
  secret: string,
  body: string,
  nowMs: number,
): Promise<Record<string, string>> {
  const ts = String(Math.floor(nowMs / 1000));
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), enc.encode(`${ts}.${body}`));
  return { [ScaleWebhookHeader.timestamp]: ts, [ScaleWebhookHeader.signature]: `v1=${hex(mac)}` };
}

/** Why a signed request was refused. */
export type VerifyResult = { ok: true; signature: string } | { ok: false; message: string };

/**
 * Checks the timestamp window and the signature of `body`. The MAC comparison is WebCrypto's `verify`,
 * which compares in constant time, so a signature cannot be guessed byte by byte.
 */
export async function verifyScaleWebhook(
  secret: string,
  headers: Headers,
  body: string,
  nowMs: number,
  windowMs = SCALE_WEBHOOK_WINDOW_MS,
): Promise<VerifyResult> {
  const ts = headers.get(ScaleWebhookHeader.timestamp) ?? "";
  const sig = headers.get(ScaleWebhookHeader.signature) ?? "";
  if (!/^\d{1,12}$/.test(ts))
    return { ok: false, message: `${ScaleWebhookHeader.timestamp} must be Unix seconds` };
  if (Math.abs(nowMs - Number(ts) * 1000) > windowMs) {
    return {
      ok: false,
      message: `${ScaleWebhookHeader.timestamp} is outside the ${windowMs / 1000} s window`,
    };
  }
  const m = /^v1=([0-9a-f]{64})$/.exec(sig);
  if (!m) return { ok: false, message: `${ScaleWebhookHeader.signature} must be v1=<64 hex digits>` };
  const mac = new Uint8Array(32);
  for (let i = 0; i < 32; i++) mac[i] = Number.parseInt((m[1] as string).slice(i * 2, i * 2 + 2), 16);
  const good = await crypto.subtle.verify("HMAC", await hmacKey(secret), mac, enc.encode(`${ts}.${body}`));
  return good ? { ok: true, signature: m[1] as string } : { ok: false, message: "signature does not match" };
}
