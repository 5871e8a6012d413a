import { describe, expect, it } from "vitest";
import { decodeProbeEnv } from "./decode.js";
import { encodeProbe, encodeProbeEnv, goString } from "./encode.js";
import type { Probe } from "./types.js";

describe("encodeProbe (Go's json.Marshal of corev1.Probe)", () => {
  it.each([
    {
      name: "every field in struct order",
      probe: {
        failureThreshold: 3,
        successThreshold: 1,
        periodSeconds: 2,
        timeoutSeconds: 4,
        initialDelaySeconds: 5,
        terminationGracePeriodSeconds: 0,
        httpGet: {
          httpHeaders: [{ name: "A", value: "b" }],
          scheme: "HTTP",
          host: "127.0.0.1",
          port: 8080,
          path: "/h",
        },
      } as Probe,
      want:
        '{"httpGet":{"path":"/h","port":8080,"host":"127.0.0.1","scheme":"HTTP","httpHeaders":[{"name":"A","value":"b"}]},' +
        '"initialDelaySeconds":5,"timeoutSeconds":4,"periodSeconds":2,"successThreshold":1,"failureThreshold":3,"terminationGracePeriodSeconds":0}',
    },
    { name: "port is always written", probe: { tcpSocket: {} }, want: '{"tcpSocket":{"port":0}}' },
    {
      name: "string port keeps its type",
      probe: { tcpSocket: { port: "8080", host: "h" } },
      want: '{"tcpSocket":{"port":"8080","host":"h"}}',
    },
    {
      name: "grpc with empty service",
      probe: { grpc: { port: 9, service: "" } },
      want: '{"grpc":{"port":9,"service":""}}',
    },
    {
      name: "grpc without service (a nil pointer)",
      probe: { grpc: { port: 9 } },
      want: '{"grpc":{"port":9,"service":null}}',
    },
    { name: "exec", probe: { exec: { command: ["a", "b"] } }, want: '{"exec":{"command":["a","b"]}}' },
    {
      name: "zeros are left out",
      probe: { tcpSocket: { port: 1 }, periodSeconds: 0 },
      want: '{"tcpSocket":{"port":1}}',
    },
  ])("$name", ({ probe, want }) => {
    expect(encodeProbe(probe)).toBe(want);
  });

  it("round-trips through decodeProbeEnv", () => {
    const probe: Probe = {
      httpGet: { path: "/x?a=1&b=<2>", port: 1, host: "127.0.0.1", scheme: "HTTP" },
      successThreshold: 2,
    };
    const json = encodeProbe(probe);
    expect(decodeProbeEnv(json, false)).toEqual({ ok: true, value: [probe] });
  });
});

describe("goString", () => {
  it.each([
    { s: "a&b<c>", want: '"a\\u0026b\\u003cc\\u003e"' },
    { s: "line\nbreak\ttab", want: '"line\\nbreak\\ttab"' },
    { s: "\u2028\u2029", want: '"\\u2028\\u2029"' },
    { s: "\u0001", want: '"\\u0001"' },
    { s: "bad \ud800 surrogate", want: '"bad \ufffd surrogate"' },
    { s: 'quote " and \\', want: '"quote \\" and \\\\"' },
  ])("escapes $s like Go", ({ s, want }) => {
    expect(goString(s)).toBe(want);
  });
});

describe("encodeProbeEnv", () => {
  it.each([
    { name: "missing probe", input: null },
    { name: "empty list", input: [] },
    { name: "list with a hole", input: [{ tcpSocket: {} }, null] },
  ])("refuses $name", ({ input }) => {
    expect(encodeProbeEnv(input as Probe[]).ok).toBe(false);
  });
});

describe("decodeProbeEnv", () => {
  it.each([
    { name: "array when multi-container probing is off", env: "[{}]", multi: false },
    { name: "object when it is on", env: "{}", multi: true },
    { name: "broken JSON", env: "{", multi: false },
    { name: "a string", env: '"x"', multi: false },
  ])("refuses $name", ({ env, multi }) => {
    expect(decodeProbeEnv(env, multi).ok).toBe(false);
  });
});
