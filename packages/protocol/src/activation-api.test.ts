import { describe, expect, it } from "vitest";
import {
  apiError,
  apiErrorResponse,
  badActivateRequestResponse,
  MAX_ACTIVATE_TIMEOUT_MS,
  parseActivateRequest,
} from "./activation-api.js";

describe("parseActivateRequest", () => {
  it.each([
    { name: "minimal", body: { namespace: "default", name: "hello-00001", timeoutMs: 5000 } },
    { name: "unknown keys ignored", body: { namespace: "a", name: "b", timeoutMs: 1, extra: true } },
    { name: "largest timeout", body: { namespace: "a", name: "b", timeoutMs: MAX_ACTIVATE_TIMEOUT_MS } },
  ])("accepts $name", ({ body }) => {
    const r = parseActivateRequest(body);
    expect(r).toEqual({
      ok: true,
      value: { namespace: body.namespace, name: body.name, timeoutMs: body.timeoutMs },
    });
  });

  it.each([
    { name: "null", body: null, paths: [""] },
    { name: "array", body: [], paths: [""] },
    { name: "string", body: "x", paths: [""] },
    { name: "empty object", body: {}, paths: ["namespace", "name", "timeoutMs"] },
    { name: "namespace not a string", body: { namespace: 1, name: "b", timeoutMs: 1 }, paths: ["namespace"] },
    { name: "upper-case name", body: { namespace: "a", name: "Hello", timeoutMs: 1 }, paths: ["name"] },
    { name: "name too long", body: { namespace: "a", name: "x".repeat(64), timeoutMs: 1 }, paths: ["name"] },
    { name: "name ends with dash", body: { namespace: "a", name: "b-", timeoutMs: 1 }, paths: ["name"] },
    { name: "zero timeout", body: { namespace: "a", name: "b", timeoutMs: 0 }, paths: ["timeoutMs"] },
    { name: "string timeout", body: { namespace: "a", name: "b", timeoutMs: "5" }, paths: ["timeoutMs"] },
    {
      name: "infinite timeout",
      body: { namespace: "a", name: "b", timeoutMs: Number.POSITIVE_INFINITY },
      paths: ["timeoutMs"],
    },
    {
      name: "timeout a runtime timer cannot hold",
      body: { namespace: "a", name: "b", timeoutMs: 2 ** 31 },
      paths: ["timeoutMs"],
    },
  ])("rejects $name", ({ body, paths }) => {
    const r = parseActivateRequest(body);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.issues.map((i) => i.path)).toEqual(paths);
      for (const i of r.issues) expect(i.message.length).toBeGreaterThan(10);
    }
  });
});

describe("ApiError responses", () => {
  it.each([
    { code: "ERR_UNAUTHORIZED", status: 401 },
    { code: "ERR_ACTIVATION_TIMEOUT", status: 504 },
    { code: "ERR_UNKNOWN_REVISION", status: 404 },
  ])("$code is JSON with status $status", async ({ code, status }) => {
    const res = apiErrorResponse(code, "m", { "Retry-After": "2" });
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("retry-after")).toBe("2");
    expect(await res.json()).toEqual(apiError(code, "m"));
  });

  it("a bad ActivateRequest becomes 400 naming the fields", async () => {
    const r = parseActivateRequest({ namespace: "a" });
    if (r.ok) throw new Error("expected issues");
    const res = badActivateRequestResponse(r.issues);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("ERR_BAD_REQUEST");
    expect(body.error.message).toMatch(/^name: .*; timeoutMs: /);
  });
});
