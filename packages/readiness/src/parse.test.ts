import { describe, expect, it } from "vitest";
import { parseProbe, parseProbeList } from "./parse.js";

describe("parseProbe", () => {
  it.each([
    {
      name: "full object",
      input: {
        httpGet: { path: "/h", port: "http", httpHeaders: [{ name: "A", value: "b" }] },
        periodSeconds: 5,
        timeoutSeconds: 2,
      },
      want: {
        httpGet: { path: "/h", port: "http", httpHeaders: [{ name: "A", value: "b" }] },
        periodSeconds: 5,
        timeoutSeconds: 2,
      },
    },
    { name: "JSON text", input: '{"tcpSocket":{"port":8080}}', want: { tcpSocket: { port: 8080 } } },
    {
      name: "zero scalars and empty strings are unset, as in Go",
      input: { tcpSocket: { host: "" }, periodSeconds: 0, failureThreshold: 0, successThreshold: 1 },
      want: { tcpSocket: {}, successThreshold: 1 },
    },
    {
      name: "pointer fields keep explicit zero values",
      input: { grpc: { port: 9, service: "" }, terminationGracePeriodSeconds: 0 },
      want: { grpc: { port: 9, service: "" }, terminationGracePeriodSeconds: 0 },
    },
    { name: "exec with empty command", input: { exec: { command: [] } }, want: { exec: {} } },
  ])("parses $name", ({ input, want }) => {
    expect(parseProbe(input)).toEqual({ ok: true, value: want });
  });

  it.each([
    {
      name: "not an object",
      input: 42,
      issues: [{ path: "readinessProbe", message: "expected an object, got number 42" }],
    },
    { name: "bad JSON", input: "{", match: /^invalid JSON/ },
    {
      name: "string seconds",
      input: { periodSeconds: "5" },
      issues: [{ path: "readinessProbe.periodSeconds", message: 'expected a 32-bit integer, got "5"' }],
    },
    {
      name: "fractional threshold",
      input: { successThreshold: 1.5 },
      issues: [
        { path: "readinessProbe.successThreshold", message: "expected a 32-bit integer, got number 1.5" },
      ],
    },
    {
      name: "unknown field",
      input: { tcpSocket: { port: 1, hots: "x" } },
      issues: [{ path: "readinessProbe.tcpSocket.hots", message: "must not set the field(s)" }],
    },
    {
      name: "header without name",
      input: { httpGet: { httpHeaders: [{ value: "x" }] } },
      issues: [
        { path: "readinessProbe.httpGet.httpHeaders[0].name", message: "expected a non-empty header name" },
      ],
    },
    {
      name: "port of the wrong type",
      input: { httpGet: { port: true } },
      issues: [
        { path: "readinessProbe.httpGet.port", message: "expected a port number or name, got boolean true" },
      ],
    },
  ])("reports $name as issues, never throwing", ({ input, issues, match }) => {
    const r = parseProbe(input, { path: "readinessProbe" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    if (issues) expect(r.issues).toEqual(issues);
    if (match) expect(r.issues[0]?.message).toMatch(match);
  });

  it("ignores unknown fields when asked to, like Go's decoder", () => {
    expect(parseProbe({ tcpSocket: { port: 1, extra: 1 }, foo: 2 }, { unknownFields: "ignore" })).toEqual({
      ok: true,
      value: { tcpSocket: { port: 1 } },
    });
  });
});

describe("parseProbeList", () => {
  it.each([
    { name: "single object", input: { tcpSocket: {} }, want: [{ tcpSocket: {} }] },
    {
      name: "array",
      input: '[{"tcpSocket":{}},{"grpc":{"port":1}}]',
      want: [{ tcpSocket: {} }, { grpc: { port: 1 } }],
    },
  ])("accepts $name", ({ input, want }) => {
    expect(parseProbeList(input)).toEqual({ ok: true, value: want });
  });

  it.each([
    { name: "empty array", input: [], issues: [{ path: "", message: "expected at least one probe" }] },
    {
      name: "bad element",
      input: [{ tcpSocket: {} }, { periodSeconds: -1.5 }],
      issues: [{ path: "[1].periodSeconds", message: "expected a 32-bit integer, got number -1.5" }],
    },
  ])("rejects $name", ({ input, issues }) => {
    expect(parseProbeList(input)).toEqual({ ok: false, issues });
  });
});
