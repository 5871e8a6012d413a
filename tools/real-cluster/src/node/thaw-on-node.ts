import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { kubectl } from "../kubectl.js";
import { waitReady } from "../ready.js";
import { api } from "./api.js";
import { type IngressNginx, startIngressNginx } from "./ingress-nginx.js";
import { type NodeCluster, startNodeCluster } from "./node-cluster.js";
import { importThawImages } from "./thaw-images.js";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/**
 * The queue-proxy's drain quiet period the install renders: every pod that goes (scale to zero, a deletion,
 * a rollout) waits it out. Knative's 30 s covers many ingress proxies learning that a pod left; here the
 * hook learns it from the activator's push and nginx caches its answer at most 2 s, so 5 s is enough and
 * each trip to zero takes 25 s less.
 */
export const DRAIN_QUIET_PERIOD = "5s";

/** The example's host, which the hook routes to apps/hello. */
export const HELLO_HOST = "hello.example.com";

/** A pod as these helpers read it. */
export interface PodView {
  metadata: { name: string; deletionTimestamp?: string };
  status: {
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { name: string; ready: boolean; restartCount: number }[];
  };
}

/** Thaw installed on a real node as docs/kubernetes.md section 4 says, with Debian's nginx in front. */
export interface ThawOnNode {
  readonly cluster: NodeCluster;
  readonly nginx: IngressNginx;
  /** The folder `thaw k8s render` wrote (overlays/dev is what was applied); removed by stop(). */
  readonly render: string;
  /** The thaw-token Secret's token. */
  readonly token: string;
  /** `kubectl` against the cluster; throws with its stderr unless it exits 0. */
  kubectl(args: string[]): Promise<string>;
  /** The pods of `app.kubernetes.io/name=<name>` in `ns`, terminating ones included. */
  pods(ns: string, name: string): Promise<PodView[]>;
  /** Every live activator pod's `thaw_activator_requests_total` for apps/hello, summed. */
  activatorRequests(): Promise<number>;
  /**
   * For a failed assertion's message: Thaw's pods (restarts, readiness), the last log lines of every pod of
   * the hook, activator and autoscaler (previous containers included), each hook's watch-connect count and
   * nginx's error log. Never throws: what cannot be read says why.
   */
  diagnostics(): Promise<string>;
  /** Stops nginx, then the cluster (every process by PID). Idempotent. */
  stop(): Promise<void>;
}

/** What {@link installThawOnNode} may change from examples/hello/thaw.k8s.yaml. */
export interface ThawOnNodeOptions {
  /** Knative config-autoscaler keys replacing the example's (default: 6 s windows, a trip to zero in seconds). */
  stableWindow?: string;
  scaleToZeroGracePeriod?: string;
  /** thaw.config.yaml's `drain.quietPeriod`, the queue-proxy's drain before a pod stops (default 5s, Knative's 30s). */
  drainQuietPeriod?: string;
  token?: string;
  /** The example's WORK_MS, the time it spends on each request (default the example's 300). */
  workMs?: number;
  /**
   * More services, as YAML lines under thaw.config.yaml's `services:` (indented as the example's). Their
   * Deployments are not waited for: a service that never gets Available (a broken app) is one use.
   */
  extraServices?: readonly string[];
}

/**
 * Renders examples/hello/thaw.k8s.yaml (with short autoscaler windows) with the built CLI, starts a
 * cluster with one real node, imports Thaw's five images, applies the render the way docs/kubernetes.md
 * section 4 says (namespaces, the thaw-token Secret, `kubectl apply -k overlays/dev`), waits for every
 * Deployment Available, and starts infra/nginx's config inside the node as the ingress, asking the hook
 * and sending held requests to the activator by their Services' ClusterIPs. Anything started is stopped
 * when a step fails.
 */
export async function installThawOnNode(o: ThawOnNodeOptions = {}): Promise<ThawOnNode> {
  const token = o.token ?? "t0k3n";
  const rendered = renderHello(
    o.stableWindow ?? "6s",
    o.scaleToZeroGracePeriod ?? "6s",
    o.drainQuietPeriod ?? DRAIN_QUIET_PERIOD,
    o.workMs,
    o.extraServices ?? [],
  );
  let cluster: NodeCluster | undefined;
  let nginx: IngressNginx | undefined;
  const stop = async () => {
    await nginx?.stop();
    await cluster?.stop();
    rmSync(dirname(rendered), { recursive: true, force: true });
  };
  try {
    cluster = await startNodeCluster();
    const cp = cluster.controlPlane;
    const ok = async (args: string[]) => {
      const r = await kubectl(cp.kubeconfigPath, args, { timeoutMs: 150_000 });
      if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")}: ${r.stderr}`);
      return r.stdout;
    };
    await importThawImages(cluster.node, [
      "queue-proxy",
      "activator",
      "autoscaler",
      "ingress-hook",
      "example-hello",
    ]);
    await ok(["apply", "-f", `${rendered}/base/namespaces.yaml`]);
    await ok(["apply", "-f", `${rendered}/app-namespaces.yaml`]);
    await ok([
      "-n",
      "thaw-system",
      "create",
      "secret",
      "generic",
      "thaw-token",
      `--from-literal=token=${token}`,
    ]);
    await ok(["apply", "-k", `${rendered}/overlays/dev`]);
    await ok([
      "-n",
      "thaw-system",
      "wait",
      "--for=condition=Available",
      "deployment",
      "--all",
      "--timeout=150s",
    ]);
    await ok(["-n", "apps", "wait", "--for=condition=Available", "deployment/hello", "--timeout=150s"]);
    const clusterIp = async (name: string) =>
      (
        await api<{ spec: { clusterIP: string } }>(
          cp,
          "GET",
          `/api/v1/namespaces/thaw-system/services/${name}`,
        )
      )?.spec.clusterIP;
    nginx = await startIngressNginx({
      net: cluster.net,
      hook: `${await clusterIp("thaw-ingress-hook")}:8090`,
      activator: `${await clusterIp("thaw-activator")}:8012`,
      token,
    });
    const pods = async (ns: string, name: string) => {
      const q = encodeURIComponent(`app.kubernetes.io/name=${name}`);
      const l = await api<{ items: PodView[] }>(
        cp,
        "GET",
        `/api/v1/namespaces/${ns}/pods?labelSelector=${q}`,
      );
      return l?.items ?? [];
    };
    await untilHookReachesActivator(nginx, pods, token);
    return {
      cluster,
      nginx,
      render: rendered,
      token,
      kubectl: ok,
      pods,
      activatorRequests: async () => {
        let sum = 0;
        for (const p of await pods("thaw-system", "thaw-activator")) {
          if (!p.status.podIP || p.metadata.deletionTimestamp) continue;
          // A pod that is not answering (just killed, still starting) has counted nothing of this run.
          sum +=
            (await podMetric(
              p.status.podIP,
              8012,
              token,
              /^thaw_activator_requests_total\{namespace="apps",revision="hello"\} (\d+)$/m,
            )) ?? 0;
        }
        return sum;
      },
      diagnostics: async () => {
        const run = async (args: string[]) => {
          const r = await kubectl(cp.kubeconfigPath, args, { timeoutMs: 20_000 });
          return r.code === 0 ? r.stdout.trimEnd() : `(kubectl ${args.join(" ")}: ${r.stderr.trim()})`;
        };
        const parts = [`$ kubectl get pods -A\n${await run(["get", "pods", "-A", "-o", "wide"])}`];
        // Every pod of each Deployment (`deploy/x` would show one of its replicas), each line prefixed with
        // its pod; and each hook's count of watch connects, which says whether it ever reached the activator.
        for (const d of ["thaw-ingress-hook", "thaw-activator", "thaw-autoscaler"]) {
          for (const previous of [false, true]) {
            const args = ["-n", "thaw-system", "logs", "-l", `app.kubernetes.io/name=${d}`, "--prefix"];
            args.push("--all-containers", "--tail=25", ...(previous ? ["--previous"] : []));
            parts.push(`$ kubectl ${args.join(" ")}\n${await run(args)}`);
          }
        }
        for (const p of await pods("thaw-system", "thaw-ingress-hook")) {
          const n = p.status.podIP ? await hookWatchConnects(p.status.podIP, token) : undefined;
          parts.push(`${p.metadata.name}: thaw_hook_watch_connects_total ${n ?? "unreadable"}`);
        }
        parts.push(`$ tail ingress-nginx.log (its error log)\n${(nginx as IngressNginx).component.tail(30)}`);
        return parts.join("\n");
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * Waits until the hook's watch has connected to the activator through the activator's Service. Deployments
 * Available and nginx answering through the hook do not mean that: the Service routes to the activator only
 * once its EndpointSlice lists the ready pod and kube-proxy has its rules, seconds later on a loaded node.
 * Until then the hook's calls to the activator are refused (ECONNREFUSED) and a cold request is answered
 * 503 ERR_UPSTREAM + Retry-After, as designed; a test that starts then sees that, not what it asserts.
 */
async function untilHookReachesActivator(
  nginx: IngressNginx,
  pods: (ns: string, name: string) => Promise<PodView[]>,
  token: string,
): Promise<void> {
  const hint =
    "see kubectl -n thaw-system logs deploy/thaw-ingress-hook and the thaw-activator EndpointSlice";
  await waitReady(
    nginx.component,
    "in front of a hook whose watch reached the activator through its Service",
    async () => {
      const ips = (await pods("thaw-system", "thaw-ingress-hook"))
        .filter((p) => p.status.podIP && !p.metadata.deletionTimestamp)
        .map((p) => p.status.podIP as string);
      if (ips.length === 0) throw new Error(`no hook pod with an IP yet; ${hint}`);
      for (const ip of ips) {
        const n = await hookWatchConnects(ip, token);
        if (!n) throw new Error(`hook ${ip}: thaw_hook_watch_connects_total ${n ?? "unreadable"}; ${hint}`);
      }
      return true;
    },
    Date.now() + 90_000,
  );
}

/** How many times the hook pod at `ip` connected its watch to the activator; undefined when it does not answer. */
function hookWatchConnects(ip: string, token: string): Promise<number | undefined> {
  return podMetric(ip, 8090, token, /^thaw_hook_watch_connects_total (\d+)/m);
}

/** The first sample `sample` captures from a pod's /metrics (bearer `token`); undefined when it does not answer. */
async function podMetric(
  ip: string,
  port: number,
  token: string,
  sample: RegExp,
): Promise<number | undefined> {
  const res = await fetch(`http://${ip}:${port}/metrics`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(5_000),
  }).catch(() => undefined);
  if (!res?.ok) return undefined;
  return Number(sample.exec(await res.text())?.[1] ?? 0);
}

/** `thaw k8s render` (the built CLI) of the example with the given windows, into a fresh temp folder. */
function renderHello(
  stableWindow: string,
  grace: string,
  quietPeriod: string,
  workMs: number | undefined,
  extraServices: readonly string[],
): string {
  let config = readFileSync(join(ROOT, "examples/hello/thaw.k8s.yaml"), "utf8")
    .replace("stable-window: 60s", `stable-window: ${stableWindow}`)
    .replace("scale-to-zero-grace-period: 30s", `scale-to-zero-grace-period: ${grace}`)
    .replace(/^services:/m, `drain:\n  quietPeriod: ${quietPeriod}\nservices:`);
  if (workMs !== undefined) {
    if (!Number.isInteger(workMs) || workMs < 0)
      throw new RangeError(`workMs must be a whole number >= 0, got ${workMs}`);
    config = config.replace(/WORK_MS: "\d+"/, `WORK_MS: "${workMs}"`);
  }
  if (extraServices.length > 0) config = `${config.trimEnd()}\n${extraServices.join("\n")}\n`;
  const dir = mkdtempSync(join(tmpdir(), "thaw-on-node-"));
  writeFileSync(join(dir, "thaw.k8s.yaml"), config);
  const out = join(dir, "render");
  execFileSync(
    process.execPath,
    [
      join(ROOT, "apps/cli/dist/main.js"),
      "k8s",
      "render",
      "--config",
      join(dir, "thaw.k8s.yaml"),
      "--out",
      out,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  return out;
}
