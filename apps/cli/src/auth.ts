import { bearerToken, tokenAllows } from "@thaw/protocol";

/** Where a credential may come from for one endpoint besides `Authorization: Bearer`. */
export interface CredentialSources {
  /** `?token=` (forward-auth, for proxies that can only configure a URL, e.g. Traefik's `address`). */
  query?: boolean;
}

/**
 * True when no token is set, or when the request carries it in one of the allowed places. The page's
 * sign-in cookie is the dashboard's own business (@thaw/autoscaler-service `dashboardRoutes`).
 */
export function authorized(req: Request, token: string | undefined, from: CredentialSources = {}): boolean {
  if (!token) return true;
  const presented = [bearerToken(req.headers)];
  if (from.query) presented.push(new URL(req.url).searchParams.get("token") ?? undefined);
  return tokenAllows(token, ...presented);
}
