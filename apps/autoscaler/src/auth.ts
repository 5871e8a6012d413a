import { bearerToken, tokenAllows } from "@thaw/protocol";

/**
 * True when `authorization` carries `Bearer <token>`, or when no token is configured (DESIGN.md contract 5:
 * internal endpoints need the token only when one is set). Compared in constant time (@thaw/protocol).
 */
export function bearerOk(authorization: string | null | undefined, token: string | undefined): boolean {
  return tokenAllows(token, bearerToken(new Headers({ authorization: authorization ?? "" })));
}
