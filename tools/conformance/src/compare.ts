/**
 * Deep comparison that explains the first difference, so a failing vector says what differs and where.
 * Returns undefined when equal.
 */
export function diff(actual: unknown, expected: unknown, path = "$"): string | undefined {
  if (Object.is(actual, expected)) return undefined;
  if (typeof expected === "number" && typeof actual === "number") {
    return actual === expected ? undefined : `${path}: expected ${expected}, got ${actual}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${show(actual)}`;
    if (actual.length !== expected.length) {
      return `${path}: expected ${expected.length} items, got ${actual.length} (${show(actual)})`;
    }
    for (let i = 0; i < expected.length; i++) {
      const d = diff(actual[i], expected[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) {
      return `${path}: expected an object, got ${show(actual)}`;
    }
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    for (const key of new Set([...Object.keys(e), ...Object.keys(a)])) {
      const d = diff(a[key], e[key], `${path}.${key}`);
      if (d) return d;
    }
    return undefined;
  }
  return `${path}: expected ${show(expected)}, got ${show(actual)}`;
}

/** True when |actual - expected| <= tolerance. */
export function near(actual: number, expected: number, tolerance: number): boolean {
  return Math.abs(actual - expected) <= tolerance;
}

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 200 ? `${s.slice(0, 200)}…` : s;
}
