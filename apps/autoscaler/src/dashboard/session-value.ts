/**
 * The dashboard's sign-in value: `v1.<expiry ms>.<HMAC-SHA256>` with a key derived from the token under a
 * label of its own, so the cookie proves a sign-in without being the token (a leaked cookie expires and
 * cannot be used as a bearer token on the API).
 */

/** How long a sign-in lasts. */
export const SESSION_TTL_MS = 24 * 60 * 60 * 1000;

const LABEL = "thaw dashboard session key v1";
const enc = new TextEncoder();
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
const keys = new Map<string, Promise<HmacKey>>();

/** HMAC key for session values: HMAC(token, LABEL), never the token itself. */
function sessionKey(token: string): Promise<HmacKey> {
  let key = keys.get(token);
  if (!key) {
    key = (async () => {
      const base = await crypto.subtle.importKey(
        "raw",
        enc.encode(token),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      const derived = await crypto.subtle.sign("HMAC", base, enc.encode(LABEL));
      return crypto.subtle.importKey("raw", derived, { name: "HMAC", hash: "SHA-256" }, false, [
        "sign",
        "verify",
      ]);
    })();
    keys.set(token, key);
  }
  return key;
}

function b64url(bytes: ArrayBuffer): string {
  let s = "";
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromB64url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return undefined;
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** A signed session value that expires at `now + ttlMs`. */
export async function issueSession(token: string, now: number, ttlMs = SESSION_TTL_MS): Promise<string> {
  const payload = `v1.${Math.floor(now + ttlMs)}`;
  return `${payload}.${b64url(await crypto.subtle.sign("HMAC", await sessionKey(token), enc.encode(payload)))}`;
}

/** True when `value` was issued for `token` and has not expired at `now`. */
export async function sessionValid(token: string, value: string | undefined, now: number): Promise<boolean> {
  const m = /^(v1\.(\d{1,16}))\.([^.]*)$/.exec(value ?? "");
  if (!m?.[1] || !m[2] || m[3] === undefined) return false;
  const sig = fromB64url(m[3]);
  if (!sig || Number(m[2]) <= now) return false;
  return crypto.subtle.verify("HMAC", await sessionKey(token), sig, enc.encode(m[1]));
}
