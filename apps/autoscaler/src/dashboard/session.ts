import { bearerToken, tokenAllows } from "@thaw/protocol";
import { issueSession, SESSION_TTL_MS, sessionValid } from "./session-value.js";

/**
 * Prefix of the sign-in cookie's name; the name ends with the port the browser used, because browsers do
 * not scope cookies by port and two Thaw servers on one host must not share a sign-in.
 */
export const SESSION_COOKIE = "thaw_session";

/** The sign-in cookie's name for the server `req` reached (`thaw_session_<port>`). */
export function sessionCookieName(req: Request): string {
  const url = new URL(req.url);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${SESSION_COOKIE}_${port}`;
}

/** The value of cookie `name`, or undefined. */
export function readCookie(headers: Headers, name: string): string | undefined {
  for (const part of (headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** True when no token is set, or the request carries it as a bearer token or a valid sign-in session. */
export async function pageAuthorized(req: Request, token: string | undefined, now: number): Promise<boolean> {
  if (!token) return true;
  if (tokenAllows(token, bearerToken(req.headers))) return true;
  return sessionValid(token, readCookie(req.headers, sessionCookieName(req)), now);
}

/**
 * The `Set-Cookie` that signs a browser in: a signed, expiring session value (never the token), HttpOnly
 * (no script reads it), Strict (no cross-site use), only under /_thaw/.
 */
export async function sessionCookie(req: Request, token: string, now: number): Promise<string> {
  const value = await issueSession(token, now);
  const maxAge = Math.floor(SESSION_TTL_MS / 1000);
  return `${sessionCookieName(req)}=${value}; Path=/_thaw/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}`;
}

/** 401 as the contract's ApiError JSON, for API callers without the token. */
export function unauthorizedJson(): Response {
  return Response.json(
    {
      error: {
        code: "ERR_UNAUTHORIZED",
        message: "a valid Authorization: Bearer <token> header is required (thaw.config.yaml `token`)",
      },
    },
    { status: 401, headers: { "www-authenticate": 'Bearer realm="thaw"', "cache-control": "no-store" } },
  );
}

/** The page a browser gets instead of the dashboard until it signs in with the token once. */
export function signInPage(wrong: boolean): Response {
  const note = wrong ? '<p class="err" role="alert">That is not the token.</p>' : "";
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Thaw: sign in</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#1d2430}.err{color:#a4262c}
input,button{font:inherit;padding:.3rem .5rem}:focus-visible{outline:3px solid #2747a0;outline-offset:2px}</style></head>
<body><h1>Thaw</h1><p>This status page needs the token from thaw.config.yaml (<code>token:</code>).</p>${note}
<form method="post" action="/_thaw/login"><label>Token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
<button type="submit">Sign in</button></form></body></html>
`;
  return new Response(html, {
    status: 401,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
  });
}
