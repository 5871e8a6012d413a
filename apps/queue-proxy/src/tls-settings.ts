/** TLS protocol versions the TLS serving port can be pinned to (Node's names). */
export type TlsVersion = "TLSv1.2" | "TLSv1.3";

/** The TLS serving port's protocol knobs, from Knative's `QUEUE_PROXY_TLS_*` variables (c.2). */
export interface TlsSettings {
  minVersion: TlsVersion;
  /** undefined = Node's default (the newest it supports). */
  maxVersion: TlsVersion | undefined;
  /** OpenSSL cipher string for `ciphers`; undefined = Node's default list. */
  ciphers: string | undefined;
  /** `ecdhCurve` list (`X25519:P-256`); undefined = Node's default. */
  ecdhCurve: string | undefined;
}

/** Knative's values for the version variables and Node's names for them. */
const VERSIONS: Record<string, TlsVersion> = { "1.2": "TLSv1.2", "1.3": "TLSv1.3" };

/**
 * The TLS 1.0-1.2 suites Go's crypto/tls implements and OpenSSL 3 still offers, by their Go/IANA name,
 * with the OpenSSL name Node's `ciphers` option wants. RC4 and 3DES are left out: OpenSSL 3 no longer
 * enables them, so accepting the names would promise suites the port cannot offer.
 */
export const GO_CIPHER_SUITES: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: "AES128-SHA",
  TLS_RSA_WITH_AES_256_CBC_SHA: "AES256-SHA",
  TLS_RSA_WITH_AES_128_CBC_SHA256: "AES128-SHA256",
  TLS_RSA_WITH_AES_128_GCM_SHA256: "AES128-GCM-SHA256",
  TLS_RSA_WITH_AES_256_GCM_SHA384: "AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: "ECDHE-ECDSA-AES128-SHA256",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: "ECDHE-RSA-AES128-SHA256",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
  // Go's older spellings of the two ChaCha20 suites.
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: "ECDHE-ECDSA-CHACHA20-POLY1305",
};

/**
 * TLS 1.3 suites. Go does not let a config choose them (they are always on), so they are accepted in the
 * list, and always added to it: a list of TLS 1.2 suites alone would make Node turn TLS 1.3 off.
 */
const TLS13_SUITES = ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"];

/** Go's curve names and Node's `ecdhCurve` names for them. */
export const GO_CURVES: Readonly<Record<string, string>> = {
  X25519: "X25519",
  CurveP256: "P-256",
  CurveP384: "P-384",
  CurveP521: "P-521",
};

/** A variable's problem, in the words of config.ts's issues. */
export interface TlsIssue {
  variable: string;
  message: string;
}

type Env = Record<string, string | undefined>;

function list(raw: string): string[] {
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** Reads the four `QUEUE_PROXY_TLS_*` variables; every bad one is pushed to `issues`. Unset = defaults. */
export function parseTlsSettings(env: Env, issues: TlsIssue[]): TlsSettings {
  const version = (name: string): TlsVersion | undefined => {
    const raw = env[name]?.trim() ?? "";
    if (raw === "") return undefined;
    const v = VERSIONS[raw];
    if (v === undefined) {
      issues.push({ variable: name, message: `is ${JSON.stringify(raw)}: expected 1.2 or 1.3` });
    }
    return v;
  };
  const minVersion = version("QUEUE_PROXY_TLS_MIN_VERSION") ?? "TLSv1.2";
  const maxVersion = version("QUEUE_PROXY_TLS_MAX_VERSION");
  if (maxVersion === "TLSv1.2" && minVersion === "TLSv1.3") {
    issues.push({
      variable: "QUEUE_PROXY_TLS_MAX_VERSION",
      message: "is 1.2, below QUEUE_PROXY_TLS_MIN_VERSION 1.3: expected a maximum >= the minimum",
    });
  }

  let ciphers: string | undefined;
  const suites = list(env["QUEUE_PROXY_TLS_CIPHER_SUITES"] ?? "");
  if (suites.length > 0) {
    const names: string[] = [];
    for (const suite of suites) {
      const openssl = GO_CIPHER_SUITES[suite];
      if (openssl !== undefined) {
        if (!names.includes(openssl)) names.push(openssl);
      } else if (!TLS13_SUITES.includes(suite)) {
        issues.push({
          variable: "QUEUE_PROXY_TLS_CIPHER_SUITES",
          message: `has unknown cipher suite ${JSON.stringify(suite)}: expected Go names such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`,
        });
      }
    }
    ciphers = [...TLS13_SUITES, ...names].join(":");
  }

  let ecdhCurve: string | undefined;
  const curves = list(env["QUEUE_PROXY_TLS_CURVE_PREFERENCES"] ?? "");
  if (curves.length > 0) {
    const names: string[] = [];
    for (const curve of curves) {
      const node = GO_CURVES[curve];
      if (node !== undefined) names.push(node);
      else {
        issues.push({
          variable: "QUEUE_PROXY_TLS_CURVE_PREFERENCES",
          message: `has unknown curve ${JSON.stringify(curve)}: expected X25519, CurveP256, CurveP384 or CurveP521`,
        });
      }
    }
    ecdhCurve = names.join(":");
  }
  return { minVersion, maxVersion, ciphers, ecdhCurve };
}
