import { describe, expect, it } from "vitest";
import { MAX_WARM_TTL_SECONDS, parseActivateRequest } from "./activation-api.js";

describe("POST /v1/activate ttlSeconds (wake hint)", () => {
  it("takes a hint alone (no timeoutMs) and a hint with a wait", () => {
    expect(parseActivateRequest({ namespace: "default", name: "api", ttlSeconds: 300 })).toEqual({
      ok: true,
      value: { namespace: "default", name: "api", ttlSeconds: 300 },
    });
    expect(parseActivateRequest({ namespace: "default", name: "api", ttlSeconds: 1, timeoutMs: 5 }).ok).toBe(
      true,
    );
  });
  const bad = [
    { name: "zero", ttl: 0 },
    { name: "above the bound", ttl: MAX_WARM_TTL_SECONDS + 1 },
    { name: "a fraction", ttl: 1.5 },
    { name: "a string", ttl: "300" },
  ];
  for (const r of bad) {
    it(`refuses ${r.name}, naming ttlSeconds`, () => {
      const p = parseActivateRequest({ namespace: "default", name: "api", ttlSeconds: r.ttl });
      expect(p.ok).toBe(false);
      if (!p.ok) expect(p.issues.map((i) => i.path)).toEqual(["ttlSeconds"]);
    });
  }
  it("still needs timeoutMs without a hint", () => {
    const p = parseActivateRequest({ namespace: "default", name: "api" });
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.issues.map((i) => i.path)).toEqual(["timeoutMs"]);
  });
});
