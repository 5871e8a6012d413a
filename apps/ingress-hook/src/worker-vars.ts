import type { Issue } from "./config.js";

/** Knative's ceiling on a revision's timeout: no activation may wait longer (10 minutes). */
export const MAX_ACTIVATION_TIMEOUT_MS = 600_000;
/** The shipped activation timeout: Knative's default revision timeout (300 s), so real cold starts fit. */
export const DEFAULT_ACTIVATION_TIMEOUT_MS = 300_000;

/** The gateway's vars, checked. */
export interface EdgeVars {
  origin: URL;
  services: unknown;
  /** THAW_WARM parsed as JSON (checked against the services by parseWarmRules); [] when unset. */
  warm: unknown;
  activationTimeoutMs: number;
  warmTtlMs: number;
}

function ms(
  raw: string | undefined,
  path: string,
  dflt: number,
  min: number,
  max: number,
  issues: Issue[],
): number {
  if (raw === undefined || raw === "") return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    issues.push({ path, message: `must be whole milliseconds ${min}..${max}, got ${JSON.stringify(raw)}` });
  }
  return n;
}

/** Reads the gateway Worker's vars; every issue names the var and what to put there. */
export function readEdgeVars(env: {
  ORIGIN_URL?: string;
  THAW_SERVICES?: string;
  THAW_WARM?: string;
  ACTIVATION_TIMEOUT_MS?: string;
  WARM_TTL_MS?: string;
}): { ok: true; value: EdgeVars } | { ok: false; issues: Issue[] } {
  const issues: Issue[] = [];
  let origin: URL | undefined;
  try {
    origin = new URL(env.ORIGIN_URL ?? "");
    if (origin.protocol !== "http:" && origin.protocol !== "https:") throw new Error("scheme");
  } catch {
    issues.push({
      path: "ORIGIN_URL",
      message: `must be the origin's absolute http(s) URL (a Thaw gateway such as http://127.0.0.1:8080, or the platform's address for the service), got ${JSON.stringify(env.ORIGIN_URL ?? "")}`,
    });
  }
  let services: unknown;
  try {
    services = JSON.parse(env.THAW_SERVICES ?? "");
  } catch (err) {
    issues.push({
      path: "THAW_SERVICES",
      message: `must be JSON [{name, namespace, hosts}]: ${(err as Error).message}`,
    });
  }
  let warm: unknown = [];
  if (env.THAW_WARM !== undefined && env.THAW_WARM.trim() !== "") {
    try {
      warm = JSON.parse(env.THAW_WARM);
    } catch (err) {
      issues.push({
        path: "THAW_WARM",
        message: `must be JSON [{path, services, ttlSeconds}] (thaw.config.yaml's warm:): ${(err as Error).message}`,
      });
    }
  }
  const activationTimeoutMs = ms(
    env.ACTIVATION_TIMEOUT_MS,
    "ACTIVATION_TIMEOUT_MS",
    DEFAULT_ACTIVATION_TIMEOUT_MS,
    1000,
    MAX_ACTIVATION_TIMEOUT_MS,
    issues,
  );
  const warmTtlMs = ms(env.WARM_TTL_MS, "WARM_TTL_MS", 2000, 0, 3_600_000, issues);
  if (issues.length > 0 || !origin) return { ok: false, issues };
  return { ok: true, value: { origin, services, warm, activationTimeoutMs, warmTtlMs } };
}
