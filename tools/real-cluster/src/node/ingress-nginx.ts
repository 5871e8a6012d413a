import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Component, startComponent } from "../process.js";
import { waitReady } from "../ready.js";
import type { NodeNetwork } from "./netns.js";

const INFRA_NGINX = fileURLToPath(new URL("../../../../infra/nginx/", import.meta.url));

/** Where {@link startIngressNginx} sends what, as addresses reachable inside the node's namespace. */
export interface IngressNginxOptions {
  net: NodeNetwork;
  /** The hook, e.g. its Service's ClusterIP and port. */
  hook: string;
  /** The activator, e.g. its Service's ClusterIP and port. */
  activator: string;
  /** The bearer token the hook expects (the thaw-token Secret). */
  token: string;
  /** The HTTP/1 listener's port on the node IP (default 9080, h2c on the next one; CoreDNS holds 8080 there). */
  port?: number;
}

/** Debian's nginx running infra/nginx's config on the node, as the cluster's ingress. */
export interface IngressNginx {
  readonly component: Component;
  /** `http://<node IP>:<port>`: reachable from the host through the node's veth pair. */
  readonly url: string;
  /** Its state folder (config, temp files, cache, log); removed by stop(). */
  readonly dir: string;
  stop(): Promise<void>;
}

/**
 * Runs infra/nginx/nginx.conf (and the thaw-*.conf it includes, unchanged) inside the node's namespace,
 * where kube-proxy routes ClusterIPs and the pods' addresses are on the bridge: the place an ingress
 * controller's pod would send from. Only the listen addresses, the hook, the activator and the token are
 * replaced. Resolves once the hook answers through it (a request for no routed host gets the hook's 404).
 *
 * Its state folder is a fresh one under the OS temp dir, not under the cluster's: started as root, nginx's
 * workers run as nobody, and the cluster's folder (mkdtemp, 0700) would keep them out of their own
 * temp and cache folders; every auth subrequest then fails to open its cache file (EACCES, a 500), which
 * infra/nginx's `@thaw_hook_down` answers as 503 + Retry-After: 1, for every request, warm or cold.
 */
export async function startIngressNginx(o: IngressNginxOptions): Promise<IngressNginx> {
  const bin = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((b) => spawnSync(b, ["-v"]).status === 0);
  if (!bin) throw new Error("nginx is not installed: apt-get install -y nginx-light (bash .ci/run does)");
  const port = o.port ?? 9080;
  // Started as root, nginx's workers run as nobody: they write the temp and cache folders.
  const dir = mkdtempSync(join(tmpdir(), "thaw-ingress-nginx-"));
  chmodSync(dir, 0o755);
  for (const d of ["tmp", "cache"]) {
    mkdirSync(join(dir, d), { recursive: true });
    chmodSync(join(dir, d), 0o777);
  }
  const replace: Record<string, string> = {
    "127.0.0.1:8080": `${o.net.nodeIp}:${port}`,
    "127.0.0.1:8081": `${o.net.nodeIp}:${port + 1}`,
    "127.0.0.1:8090": o.hook,
    "127.0.0.1:8089": o.activator,
    "change-me-to-a-long-random-string": o.token,
  };
  let conf = readFileSync(join(INFRA_NGINX, "nginx.conf"), "utf8");
  for (const [from, to] of Object.entries(replace)) conf = conf.split(from).join(to);
  writeFileSync(join(dir, "nginx.conf"), conf);
  for (const f of readdirSync(INFRA_NGINX)) {
    if (!f.startsWith("thaw-") || !f.endsWith(".conf")) continue;
    let inc = readFileSync(join(INFRA_NGINX, f), "utf8");
    for (const [from, to] of Object.entries(replace)) inc = inc.split(from).join(to);
    writeFileSync(join(dir, f), inc);
  }
  const args = ["-p", `${dir}/`, "-c", join(dir, "nginx.conf"), "-e", "stderr"];
  const check = spawnSync(...o.net.inside(bin, ["-t", ...args]), { encoding: "utf8" });
  if (check.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`nginx -t failed:\n${check.stderr}`);
  }
  const [cmd, argv] = o.net.inside(bin, [...args, "-g", "daemon off;"]);
  const component = startComponent("ingress-nginx", cmd, argv, dir);
  const url = `http://${o.net.nodeIp}:${port}`;
  const stop = async () => {
    await component.stop(5_000);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // The node IP routes to no service: the hook's 404 proves nginx reaches it and can use its cache.
    await waitReady(
      component,
      "answering through the hook (404 for a host no service has)",
      async () => (await fetch(url)).status === 404,
      Date.now() + 15_000,
    );
  } catch (e) {
    await stop();
    throw e;
  }
  return { component, url, dir, stop };
}
