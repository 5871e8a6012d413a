/**
 * What the build stage's `npm ci` needs to reach the npm registry from inside a container: this machine's CA
 * bundle and an npmrc naming it. Both go in as build secrets (mounted for one RUN, never in a layer).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Files handed to `podman build --secret`. */
export interface NpmSecrets {
  npmrc: string;
  ca: string;
  /** Where these were written (removed by the caller). */
  dir: string;
}

function npmConfig(key: string): string {
  try {
    const v = execFileSync("npm", ["config", "get", key], {
      encoding: "utf8",
      cwd: tmpdir(),
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return v === "undefined" || v === "null" ? "" : v;
  } catch {
    return "";
  }
}

/**
 * The CA bundle npm uses here (its `cafile`, else NODE_EXTRA_CA_CERTS, else Debian's bundle), and an npmrc
 * with the registry, proxies and `cafile` pointing at the mounted copy. No auth token is copied: the registry
 * is read anonymously.
 */
export function npmSecrets(): NpmSecrets {
  const candidates = [
    npmConfig("cafile"),
    process.env.NODE_EXTRA_CA_CERTS ?? "",
    "/etc/ssl/certs/ca-certificates.crt",
  ].filter(Boolean);
  const ca = candidates.find((p) => existsSync(p));
  if (!ca)
    throw new Error(
      `no CA bundle for the build's npm ci: looked for ${candidates.join(", ")}; install ca-certificates (apt-get install ca-certificates) or set npm's cafile`,
    );
  const lines = ["cafile=/run/secrets/npm_ca", "fund=false", "audit=false", "update-notifier=false"];
  for (const key of ["registry", "proxy", "https-proxy", "noproxy"]) {
    const v = npmConfig(key);
    if (v) lines.push(`${key}=${v}`);
  }
  const dir = mkdtempSync(join(tmpdir(), "thaw-npm-secrets-"));
  const npmrc = join(dir, "npmrc");
  writeFileSync(npmrc, `${lines.join("\n")}\n`, { mode: 0o600 });
  return { npmrc, ca, dir };
}
