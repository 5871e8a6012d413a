/**
 * Compares a presented secret with the configured one in time that depends only on the configured one's
 * length, so response times do not tell an attacker how much of a guess was right.
 */
export function tokenMatches(presented: string, expected: string): boolean {
  let diff = presented.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= (presented.charCodeAt(i) | 0) ^ expected.charCodeAt(i);
  return diff === 0;
}

/** The credentials of `Authorization: Bearer <token>`, or undefined when the header has another shape. */
export function bearerToken(headers: Headers): string | undefined {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(headers.get("authorization") ?? "");
  return m ? m[1] : undefined;
}

/**
 * True when no token is configured (DESIGN.md contract 5: internal endpoints need it only when one is
 * set) or when one of `presented` matches it.
 */
export function tokenAllows(
  expected: string | undefined,
  ...presented: (string | null | undefined)[]
): boolean {
  if (expected === undefined || expected === "") return true;
  let ok = false;
  // Every candidate is compared, so the time does not say which one was wrong.
  for (const p of presented) if (typeof p === "string" && tokenMatches(p, expected)) ok = true;
  return ok;
}
