import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** A certificate and its key, as PEM files. */
export interface KeyPair {
  cert: string;
  key: string;
}

/** The cluster's certificate authority; issues serving and client certificates with openssl. */
export interface ClusterPki {
  readonly ca: KeyPair;
  /** A client certificate (CN = user, O = groups) for a kubeconfig; files `<dir>/<file>.crt|.key`. */
  client(file: string, user: string, groups?: string[]): KeyPair;
  /** A serving certificate for the given IP addresses and DNS names. */
  serving(file: string, cn: string, ips: string[], dns?: string[]): KeyPair;
}

function openssl(args: string[]): void {
  try {
    execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  } catch (e) {
    const err = e as { code?: string; stderr?: Buffer };
    if (err.code === "ENOENT") throw new Error("openssl is not on PATH: apt-get install openssl");
    throw new Error(`openssl ${args[0]} failed: ${err.stderr?.toString().trim()}`);
  }
}

// P-256 keys: Kubernetes accepts ECDSA everywhere here, and openssl makes them in milliseconds.
const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

/** A fresh CA in `dir` (ca.crt, ca.key), valid two days: every cluster gets its own. */
export function createPki(dir: string): ClusterPki {
  const ca = { cert: join(dir, "ca.crt"), key: join(dir, "ca.key") };
  openssl([
    "req",
    "-x509",
    ...EC,
    "-keyout",
    ca.key,
    "-out",
    ca.cert,
    "-days",
    "2",
    "-subj",
    "/CN=thaw-test-ca",
  ]);

  const issue = (file: string, subject: string, ext: string): KeyPair => {
    const out = { cert: join(dir, `${file}.crt`), key: join(dir, `${file}.key`) };
    const csr = join(dir, `${file}.csr`);
    const extFile = join(dir, `${file}.ext`);
    writeFileSync(extFile, `${ext}\n`);
    openssl(["req", "-new", ...EC, "-keyout", out.key, "-out", csr, "-subj", subject]);
    openssl(
      ["x509", "-req", "-in", csr, "-CA", ca.cert, "-CAkey", ca.key, "-CAcreateserial"].concat([
        "-out",
        out.cert,
        "-days",
        "2",
        "-extfile",
        extFile,
      ]),
    );
    return out;
  };
  return {
    ca,
    client: (file, user, groups = []) =>
      issue(
        file,
        `/CN=${user}${groups.map((g) => `/O=${g}`).join("")}`,
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth",
      ),
    serving: (file, cn, ips, dns = []) =>
      issue(
        file,
        `/CN=${cn}`,
        "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n" +
          `subjectAltName=${[...ips.map((i) => `IP:${i}`), ...dns.map((d) => `DNS:${d}`)].join(",")}`,
      ),
  };
}

/** The service-account token signing pair (sa.key, sa.pub). */
export function createServiceAccountKey(dir: string): { key: string; pub: string } {
  const key = join(dir, "sa.key");
  const pub = join(dir, "sa.pub");
  openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key]);
  openssl(["ec", "-in", key, "-pubout", "-out", pub]);
  return { key, pub };
}
