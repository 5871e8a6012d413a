import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";

/** A network namespace for one node, joined to the host by a veth pair; addresses all private and made here. */
export interface NodeNetwork {
  /** `thaw-<hex>`: the namespace's name under /run/netns. */
  readonly name: string;
  /** `/run/netns/<name>`, for `nsenter --net=`. */
  readonly nsPath: string;
  /** The host end's address (10.243.N.1): bind the API server here so the node and its pods reach it. */
  readonly hostIp: string;
  /** The node end's address (10.243.N.2): the kubelet's node IP. */
  readonly nodeIp: string;
  /** The pods' range inside the namespace (10.244.N.0/24), routed from the host through the veth pair. */
  readonly podCidr: string;
  /** Prefixes `cmd args` so they run inside the namespace. */
  inside(cmd: string, args?: string[]): [string, string[]];
  /** Runs a short command inside the namespace and returns its stdout. */
  exec(cmd: string, args?: string[]): string;
  /** Deletes the namespace (which takes the veth pair and the host route with it). */
  remove(): void;
}

/** Runs `ip`-like commands; a failure says what ran and what it printed. */
export function run(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    const err = e as { code?: string; stderr?: string };
    if (err.code === "ENOENT") throw new Error(`${cmd} is not on PATH: apt-get install iproute2 util-linux`);
    throw new Error(`${cmd} ${args.join(" ")} failed: ${err.stderr?.trim() ?? String(e)}`);
  }
}

/** The third octet already used by a host route in 10.243/16 or 10.244/16 (other nodes, other runs). */
function usedOctets(): Set<number> {
  const used = new Set<number>();
  for (const m of run("ip", ["-4", "route", "show"]).matchAll(/^10\.24[34]\.(\d+)\./gm))
    used.add(Number(m[1]));
  return used;
}

/**
 * Makes `thaw-<hex>` with a veth pair to the host, 10.243.N.1/30 host side and 10.243.N.2/30 node side,
 * IP forwarding on inside, and a host route to the pods' 10.244.N.0/24 through the node end. N is random
 * among the octets no host route uses yet, so several nodes (or helpers) can run at once.
 * Nothing routes beyond these two ranges: every address involved lives in a namespace made here.
 */
export function createNodeNetwork(): NodeNetwork {
  const id = randomBytes(3).toString("hex");
  const name = `thaw-${id}`;
  const nsPath = `/run/netns/${name}`;
  const used = usedOctets();
  const free = Array.from({ length: 250 }, (_, i) => i + 1).filter((n) => !used.has(n));
  const n = free[randomBytes(1)[0]! % free.length];
  if (n === undefined)
    throw new Error("no free 10.243.N.0/30 + 10.244.N.0/24 left: remove stale thaw-* netns (ip netns list)");
  const hostIf = `th${id}h`;
  const nodeIf = `th${id}n`;
  const hostIp = `10.243.${n}.1`;
  const nodeIp = `10.243.${n}.2`;
  const podCidr = `10.244.${n}.0/24`;
  try {
    run("ip", ["netns", "add", name]);
  } catch (e) {
    throw new Error(
      `${(e as Error).message}\nmaking a network namespace needs root (CAP_SYS_ADMIN) and /run/netns writable`,
    );
  }
  const inside = (cmd: string, args: string[] = []): [string, string[]] => [
    "nsenter",
    [`--net=${nsPath}`, "--", cmd, ...args],
  ];
  const exec = (cmd: string, args: string[] = []) => run(...inside(cmd, args));
  const remove = () => {
    // Deleting the namespace destroys its veth end, so the host end and the host route go too.
    try {
      run("ip", ["netns", "delete", name]);
    } catch {
      // already gone
    }
  };
  try {
    run("ip", ["link", "add", hostIf, "type", "veth", "peer", "name", nodeIf, "netns", name]);
    run("ip", ["addr", "add", `${hostIp}/30`, "dev", hostIf]);
    run("ip", ["link", "set", hostIf, "up"]);
    exec("ip", ["link", "set", "lo", "up"]);
    exec("ip", ["addr", "add", `${nodeIp}/30`, "dev", nodeIf]);
    exec("ip", ["link", "set", nodeIf, "up"]);
    // No default route on purpose: the kubelet gets --node-ip, and nothing inside should reach further.
    exec("sysctl", ["-qw", "net.ipv4.ip_forward=1"]);
    run("ip", ["route", "add", podCidr, "via", nodeIp, "dev", hostIf]);
  } catch (e) {
    remove();
    throw e;
  }
  return { name, nsPath, hostIp, nodeIp, podCidr, inside, exec, remove };
}
