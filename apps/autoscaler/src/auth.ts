import { timingSafeEqual } from "node:crypto";

/**
 * True when `authorization` carries `Bearer <token>`, or when no token is configured (DESIGN.md contract 5:
 * internal endpoints need the token only when one is set). Constant-time so the token cannot be guessed
 * byte by byte from response times.
 */
export function bearerOk(authorization: string | null | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const m = /^Bearer\s+(.+)$/i.exec(authorization ?? "");
  if (!m) return false;
  const got = Buffer.from((m[1] as string).trim());
  const want = Buffer.from(token);
  return got.length === want.length && timingSafeEqual(got, want);
}
