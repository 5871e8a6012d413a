import { bearerToken, tokenAllows } from "@thaw/protocol";

/** Cookie the status page's sign-in sets; only `GET /_thaw/` and `GET /_thaw/api/revisions` accept it. */
export const SESSION_COOKIE = "thaw_token";

/** Where a credential may come from for one endpoint. */
export interface CredentialSources {
  /** The sign-in cookie (the page and its API, read-only GETs). */
  cookie?: boolean;
  /** `?token=` (forward-auth, for proxies that can only configure a URL, e.g. Traefik's `address`). */
  query?: boolean;
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

/** True when no token is set, or when the request carries it in one of the allowed places. */
export function authorized(req: Request, token: string | undefined, from: CredentialSources = {}): boolean {
  if (!token) return true;
  const presented = [bearerToken(req.headers)];
  if (from.cookie) presented.push(readCookie(req.headers, SESSION_COOKIE));
  if (from.query) presented.push(new URL(req.url).searchParams.get("token") ?? undefined);
  return tokenAllows(token, ...presented);
}

/** 401 as the contract's ApiError JSON, for API and forward-auth callers. */
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

/** The `Set-Cookie` value that signs a browser in: HttpOnly (no script reads it), Strict (no cross-site use). */
export function sessionCookie(token: string): string {
  return `${SESSION_COOKIE}=${encodeURIComponent(token)}; Path=/_thaw; HttpOnly; SameSite=Strict; Max-Age=86400`;
}

/** The page a browser gets instead of the status page until it signs in with the token once. */
export function signInPage(wrong: boolean): Response {
  const note = wrong ? '<p class="err">That is not the token.</p>' : "";
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Thaw: sign in</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#1d2430}.err{color:#a4262c}</style></head>
<body><h1>Thaw</h1><p>This status page needs the token from thaw.config.yaml (<code>token:</code>).</p>${note}
<form method="post" action="/_thaw/login"><label>Token <input type="password" name="token" autocomplete="current-password" required></label>
<button type="submit">Sign in</button></form></body></html>
`;
  return new Response(html, {
    status: 401,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
  });
}
