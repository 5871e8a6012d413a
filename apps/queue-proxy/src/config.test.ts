import tls from "node:tls";
import { describe, expect, it } from "vitest";
import { KNATIVE_ENV } from "../test/helpers.js";
import { DEFAULT_CERTS_DIR, formatIssues, parseConfig } from "./config.js";
import { GO_CIPHER_SUITES, GO_CURVES } from "./tls-settings.js";

const good = KNATIVE_ENV;

describe("parseConfig", () => {
  it("reads Knative's variables and Thaw's defaults", () => {
    const parsed = parseConfig(good);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value).toMatchObject({
      containerConcurrency: 10,
      servingPort: 8012,
      userPort: 8080,
      revisionTimeoutSeconds: 300,
      responseStartTimeoutSeconds: 0,
      idleTimeoutSeconds: 0,
      adminPort: 8022,
      metricsPort: 9090,
      userMetricsPort: 9091,
      drainQuietPeriodMs: 30_000,
      requestLog: false,
      requestMetrics: true,
    });
  });

  const rows: { name: string; env: Record<string, string | undefined>; issues: string[] }[] = [
    { name: "missing CC", env: { CONTAINER_CONCURRENCY: undefined }, issues: ["CONTAINER_CONCURRENCY"] },
    { name: "negative CC", env: { CONTAINER_CONCURRENCY: "-1" }, issues: ["CONTAINER_CONCURRENCY"] },
    {
      name: "fractional timeout",
      env: { REVISION_TIMEOUT_SECONDS: "1.5" },
      issues: ["REVISION_TIMEOUT_SECONDS"],
    },
    { name: "user port 0", env: { USER_PORT: "0" }, issues: ["USER_PORT"] },
    { name: "port out of range", env: { QUEUE_SERVING_PORT: "70000" }, issues: ["QUEUE_SERVING_PORT"] },
    {
      name: "absent pod IP (empty is fine, absent is not)",
      env: { SERVING_POD_IP: undefined },
      issues: ["SERVING_POD_IP"],
    },
    { name: "bad boolean", env: { THAW_REQUEST_LOG: "maybe" }, issues: ["THAW_REQUEST_LOG"] },
    {
      name: "TLS version that is not 1.2 or 1.3",
      env: { QUEUE_PROXY_TLS_MIN_VERSION: "1.1", QUEUE_PROXY_TLS_MAX_VERSION: "TLSv1.3" },
      issues: ["QUEUE_PROXY_TLS_MIN_VERSION", "QUEUE_PROXY_TLS_MAX_VERSION"],
    },
    {
      name: "TLS maximum below the minimum",
      env: { QUEUE_PROXY_TLS_MIN_VERSION: "1.3", QUEUE_PROXY_TLS_MAX_VERSION: "1.2" },
      issues: ["QUEUE_PROXY_TLS_MAX_VERSION"],
    },
    {
      name: "unknown cipher suite (an OpenSSL name is not a Go name)",
      env: { QUEUE_PROXY_TLS_CIPHER_SUITES: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,ECDHE-RSA-AES128-SHA" },
      issues: ["QUEUE_PROXY_TLS_CIPHER_SUITES"],
    },
    {
      name: "unknown curve",
      env: { QUEUE_PROXY_TLS_CURVE_PREFERENCES: "X25519,P-256" },
      issues: ["QUEUE_PROXY_TLS_CURVE_PREFERENCES"],
    },
    {
      name: "several at once, in one pass",
      env: { USER_PORT: undefined, SERVING_REVISION: undefined, REVISION_IDLE_TIMEOUT_SECONDS: "x" },
      issues: ["USER_PORT", "REVISION_IDLE_TIMEOUT_SECONDS", "SERVING_REVISION"],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const env = { ...good, ...row.env };
      for (const [k, v] of Object.entries(row.env)) if (v === undefined) delete env[k];
      const parsed = parseConfig(env);
      expect(parsed.ok).toBe(false);
      if (parsed.ok) return;
      expect(parsed.issues.map((i) => i.variable)).toEqual(row.issues);
      expect(formatIssues(parsed.issues)).toContain(row.issues[0] as string);
    });
  }

  it("names the bad entry of a list", () => {
    const parsed = parseConfig({ ...good, QUEUE_PROXY_TLS_CIPHER_SUITES: "TLS_FOO, TLS_AES_128_GCM_SHA256" });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues).toHaveLength(1);
    expect(parsed.issues[0]?.message).toContain('"TLS_FOO"');
  });
});

describe("TLS settings (QUEUE_PROXY_TLS_*)", () => {
  const rows: { name: string; env: Record<string, string>; tls: Record<string, unknown> }[] = [
    {
      name: "unset: Node's defaults with TLS 1.2 at least",
      env: {},
      tls: { minVersion: "TLSv1.2", maxVersion: undefined, ciphers: undefined, ecdhCurve: undefined },
    },
    {
      name: "versions",
      env: { QUEUE_PROXY_TLS_MIN_VERSION: "1.3", QUEUE_PROXY_TLS_MAX_VERSION: "1.3" },
      tls: { minVersion: "TLSv1.3", maxVersion: "TLSv1.3" },
    },
    {
      name: "Go suite names become OpenSSL names, TLS 1.3 suites stay on",
      env: {
        QUEUE_PROXY_TLS_CIPHER_SUITES:
          "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_AES_256_GCM_SHA384",
      },
      tls: {
        ciphers:
          "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305",
      },
    },
    {
      name: "Go curve names become Node's",
      env: { QUEUE_PROXY_TLS_CURVE_PREFERENCES: "CurveP521,X25519,CurveP256,CurveP384" },
      tls: { ecdhCurve: "P-521:X25519:P-256:P-384" },
    },
    { name: "THAW_CERTS_DIR", env: { THAW_CERTS_DIR: "/tmp/certs" }, tls: {} },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const parsed = parseConfig({ ...good, ...row.env });
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) return;
      expect(parsed.value.tls).toMatchObject(row.tls);
      expect(parsed.value.certsDir).toBe(row.env["THAW_CERTS_DIR"] ?? DEFAULT_CERTS_DIR);
    });
  }

  // The table must only promise what Node's OpenSSL can do: each entry alone makes a usable context.
  for (const [go, openssl] of Object.entries(GO_CIPHER_SUITES)) {
    it(`${go} is known to OpenSSL as ${openssl}`, () => {
      const ctx = tls.createSecureContext({ ciphers: openssl, minVersion: "TLSv1.2", maxVersion: "TLSv1.2" });
      expect(ctx).toBeDefined();
    });
  }
  for (const [go, node] of Object.entries(GO_CURVES)) {
    it(`${go} is known to OpenSSL as ${node}`, () => {
      expect(tls.createSecureContext({ ecdhCurve: node })).toBeDefined();
      expect(() => tls.createSecureContext({ ecdhCurve: `${node}-not` })).toThrow();
    });
  }
});
