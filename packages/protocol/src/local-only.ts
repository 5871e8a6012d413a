import { apiErrorResponse } from "./activation-api.js";
import { ErrorCode } from "./error-code.js";

/**
 * Without a token (the laptop mode) the internal endpoints trust whoever can reach them, which must then be
 * this machine only: a browser page on another site can still send requests to 127.0.0.1 (a text/plain
 * POST needs no preflight), and DNS rebinding lends another site's name a loopback address. So they
 * answer only a loopback Host, and no request a browser marks as cross-site or sends from another origin.
 */

/** True for `localhost`, `127.x.x.x` and `[::1]`, with or without a port. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase();
  const name = h.startsWith("[") ? h.slice(0, h.indexOf("]") + 1) : h.replace(/:\d*$/, "");
  if (name === "localhost" || name === "[::1]") return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  return m !== null && m.slice(1).every((o) => Number(o) <= 255);
}

/** What {@link localOnlyProblem} looks at: the headers, and the URL whose authority stands in for a missing Host. */
export interface LocalOnlySource {
  headers: Headers;
  url: string;
}

/** Why a request may not use an internal endpoint in no-token mode, or undefined when it may. */
export function localOnlyProblem(req: LocalOnlySource): string | undefined {
  const { headers } = req;
  const host = headers.get("host") ?? hostOf(req.url);
  if (!isLoopbackHost(host)) {
    return `no token is set, so internal endpoints answer only Host localhost, 127.0.0.1 or [::1] (got ${JSON.stringify(host.slice(0, 100))}); set \`token:\` in thaw.config.yaml to call them from elsewhere`;
  }
  const site = headers.get("sec-fetch-site");
  if (site === "cross-site" || site === "same-site") {
    return `no token is set, so internal endpoints refuse requests from other sites (Sec-Fetch-Site: ${site})`;
  }
  const origin = headers.get("origin");
  if (origin !== null && origin.toLowerCase() !== `http://${host.toLowerCase()}`) {
    return `no token is set, so internal endpoints refuse requests from another origin (Origin: ${JSON.stringify(origin.slice(0, 100))})`;
  }
  return undefined;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

/** 403 `ERR_FORBIDDEN` when {@link localOnlyProblem} finds one, else undefined. */
export function localOnlyRefusal(req: LocalOnlySource): Response | undefined {
  const problem = localOnlyProblem(req);
  return problem === undefined ? undefined : apiErrorResponse(ErrorCode.ERR_FORBIDDEN, problem);
}
