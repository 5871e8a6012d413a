import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Component, startComponent } from "../process.js";
import { waitReady } from "../ready.js";
import type { NodeNetwork } from "./netns.js";

const INFRA_NGINX = fileURLToPath(new URL("../../../../infra/nginx/", import.meta.url));

/** Where {@link startIngressNginx} sends what, as addresses reachable inside the node's namespace. */
export interface IngressNginxOptions {
  net: NodeNetwork;
  /** State folder (config, temp files, cache, log). */
  dir: string;
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
  stop(): Promise<void>;
}

/**
 * Runs infra/nginx/nginx.conf (and the thaw-*.conf it includes, unchanged) inside the node's namespace,
 * where kube-proxy routes ClusterIPs and the pods' addresses are on the bridge: the place an ingress
 * controller's pod would send from. Only the listen addresses, the hook, the activator and the token are
 * replaced. Resolves once it answers HTTP.
 */
export async function startIngressNginx(o: IngressNginxOptions): Promise<IngressNginx> {
  const bin = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((b) => spawnSync(b, ["-v"]).status === 0);
  if (!bin) throw new Error("nginx is not installed: apt-get install -y nginx-light (bash .ci/run does)");
  const port = o.port ?? 9080;
  // Started as root, nginx's workers run as nobody: they write the temp and cache folders.
  mkdirSync(o.dir, { recursive: true });
  chmodSync(o.dir, 0o755);
  for (const d of ["tmp", "cache"]) {
    mkdirSync(join(o.dir, d), { recursive: true });
    chmodSync(join(o.dir, d), 0o777);
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
  writeFileSync(join(o.dir, "nginx.conf"), conf);
  for (const f of readdirSync(INFRA_NGINX)) {
    if (!f.startsWith("thaw-") || !f.endsWith(".conf")) continue;
    let inc = readFileSync(join(INFRA_NGINX, f), "utf8");
    for (const [from, to] of Object.entries(replace)) inc = inc.split(from).join(to);
    writeFileSync(join(o.dir, f), inc);
  }
  const args = ["-p", `${o.dir}/`, "-c", join(o.dir, "nginx.conf"), "-e", "stderr"];
  const check = spawnSync(...o.net.inside(bin, ["-t", ...args]), { encoding: "utf8" });
  if (check.status !== 0) throw new Error(`nginx -t failed:\n${check.stderr}`);
  const [cmd, argv] = o.net.inside(bin, [...args, "-g", "daemon off;"]);
  const component = startComponent("ingress-nginx", cmd, argv, o.dir);
  const url = `http://${o.net.nodeIp}:${port}`;
  try {
    await waitReady(
      component,
      "answering HTTP",
      async () => (await fetch(url)).status > 0,
      Date.now() + 15_000,
    );
  } catch (e) {
    await component.stop();
    throw e;
  }
  return { component, url, stop: () => component.stop(5_000) };
}
