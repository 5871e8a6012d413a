import { describe, expect, it } from "vitest";
import { ErrorCode, errorTextResponse, httpStatusFor, isErrorCode } from "./error-code.js";

describe("httpStatusFor (CONTRACTS.md)", () => {
  const table: [ErrorCode, number][] = [
    ["ERR_QUEUE_FULL", 503],
    ["ERR_DEADLINE", 503],
    ["ERR_ACTIVATION_TIMEOUT", 504],
    ["ERR_REVISION_FAILED", 503],
    ["ERR_UNKNOWN_REVISION", 404],
    ["ERR_UPSTREAM", 502],
    ["ERR_UNAUTHORIZED", 401],
    ["ERR_NO_BACKENDS", 503],
    ["ERR_BAD_REQUEST", 400],
    ["ERR_CANCELLED", 500],
    ["ERR_BODY_TOO_LARGE", 413],
    ["ERR_FORBIDDEN", 403],
  ];
  it.each(table)("%s -> %i", (code, status) => {
    expect(httpStatusFor(code)).toBe(status);
    expect(ErrorCode[code]).toBe(code);
  });

  it("every code has a row in the table above (and so a documented status)", () => {
    expect(Object.keys(ErrorCode).sort()).toEqual(table.map(([c]) => c).sort());
  });

  it.each(["ERR_SOMETHING_ELSE", "", "toString"])("unknown code %j -> 500", (code) => {
    expect(isErrorCode(code)).toBe(false);
    expect(httpStatusFor(code)).toBe(500);
  });
});

describe("errorTextResponse", () => {
  it.each([
    { code: ErrorCode.ERR_DEADLINE, message: "context deadline exceeded", status: 503 },
    { code: ErrorCode.ERR_QUEUE_FULL, message: "pending request queue full", status: 503 },
    { code: ErrorCode.ERR_UPSTREAM, message: "dial tcp: connection refused", status: 502 },
  ])("$code", async ({ code, message, status }) => {
    const res = errorTextResponse(code, message);
    expect(res.status).toBe(status);
    expect(await res.text()).toBe(`${message}\n`);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
  });
});
