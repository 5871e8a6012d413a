import { stripPort } from "@thaw/protocol";

/**
 * What the decision needs from a request, whatever the proxy dialect it came in: forward-auth adapters fill
 * `host` and `path` from X-Forwarded-Host / X-Original-URI / X-Forwarded-Uri, the middleware from the URL.
 */
export interface HookRequest {
  /** Original method (Traefik's X-Forwarded-Method, or the request's own). */
  readonly method: string;
  /** Original host, lower-case, without port. */
  readonly host: string;
  /** Original path (without query). */
  readonly path: string;
  /** The headers the hook saw: the client's, plus whatever the route set on the way. */
  readonly headers: Headers;
}

/** Lower-cases a Host value and drops its port (`[v6]:p` keeps the brackets). */
export function normalizeHost(raw: string): string {
  return stripPort(raw.trim()).toLowerCase();
}

/** Keeps the path of a request-target (`/a/b?x=1` -> `/a/b`); absolute URIs lose their origin too. */
export function pathOf(target: string): string {
  let t = target;
  if (!t.startsWith("/")) {
    const scheme = t.indexOf("://");
    if (scheme !== -1) {
      const slash = t.indexOf("/", scheme + 3);
      t = slash === -1 ? "/" : t.slice(slash);
    } else {
      t = `/${t}`;
    }
  }
  const q = t.search(/[?#]/);
  return q === -1 ? t : t.slice(0, q);
}
