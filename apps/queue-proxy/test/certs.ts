import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A temp directory for `tls.crt` and `tls.key`; `remove` deletes it. */
export function certsDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "qp-tls-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Writes a fresh self-signed P-256 certificate for 127.0.0.1 and its key into `dir` with the openssl CLI,
 * and returns the certificate (PEM, usable as a client's `ca`) and its SHA-256 fingerprint.
 */
export function writeCert(dir: string): { pem: Buffer; fingerprint: string } {
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      join(dir, "tls.key"),
      "-out",
      join(dir, "tls.crt"),
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
    ],
    { stdio: "ignore" },
  );
  const pem = readFileSync(join(dir, "tls.crt"));
  return { pem, fingerprint: new X509Certificate(pem).fingerprint256 };
}
