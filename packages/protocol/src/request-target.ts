/**
 * Request targets that carry secrets: userinfo (`http://user:pw@host/...` in absolute-form, RFC 9112 3.2.2
 * forbids it in http URIs) and a `token` / `access_token` query value. Thaw refuses the first (400) and
 * never logs either.
 */

const SECRET_PARAMS = new Set(["token", "access_token"]);

/** True when a request target's authority has userinfo (absolute-form or authority-form `user@host`). */
export function targetHasUserinfo(target: string): boolean {
  if (target.startsWith("/") || target === "*") return false;
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(target);
  const rest = scheme ? target.slice(scheme[0].length) : target;
  const end = rest.search(/[/?#]/);
  return (end === -1 ? rest : rest.slice(0, end)).includes("@");
}

/** `target` fit for a log line: userinfo dropped, `token` / `access_token` query values replaced. */
export function redactTarget(target: string): string {
  let out = target;
  if (targetHasUserinfo(out)) out = out.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?[^/?#]*@/, "$1");
  const q = out.indexOf("?");
  if (q === -1) return out;
  const hash = out.indexOf("#", q);
  const query = out.slice(q + 1, hash === -1 ? undefined : hash);
  const parts = query.split("&").map((p) => {
    const eq = p.indexOf("=");
    const name = eq === -1 ? p : p.slice(0, eq);
    let key = name;
    try {
      key = decodeURIComponent(name.replace(/\+/g, " "));
    } catch {
      // An undecodable name is logged as it came.
    }
    return SECRET_PARAMS.has(key.toLowerCase()) ? `${name}=REDACTED` : p;
  });
  return `${out.slice(0, q + 1)}${parts.join("&")}${hash === -1 ? "" : out.slice(hash)}`;
}
