import { bearerToken, tokenAllows } from "@thaw/protocol";

/** Cookie the page's sign-in sets; only the page, its stream and its read-only API accept it. */
export const SESSION_COOKIE = "thaw_token";

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

/** True when no token is set, or the request carries it as a bearer token or the sign-in cookie. */
export function pageAuthorized(req: Request, token: string | undefined): boolean {
  if (!token) return true;
  return tokenAllows(token, bearerToken(req.headers), readCookie(req.headers, SESSION_COOKIE));
}

/** The `Set-Cookie` value that signs a browser in: HttpOnly (no script reads it), Strict (no cross-site use). */
export function sessionCookie(token: string): string {
  return `${SESSION_COOKIE}=${encodeURIComponent(token)}; Path=/_thaw; HttpOnly; SameSite=Strict; Max-Age=86400`;
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
