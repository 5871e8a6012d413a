import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ClusterPki, createPki, createServiceAccountKey } from "./certs.js";
import { k8sBinaries } from "./k8s-binaries.js";
import { writeKubeconfig } from "./kubeconfig.js";
import { freePort } from "./ports.js";
import { type Component, startComponent } from "./process.js";
import { probe, waitReady } from "./ready.js";

/** Options of {@link startControlPlane}. */
export interface ControlPlaneOptions {
  /**
   * Address kube-apiserver binds and advertises (default 127.0.0.1). Pods in network namespaces reach it
   * on the host side of their network: pass that address (it must already exist on the host).
   */
  bindAddress?: string;
  /** Service IPs (default 10.96.0.0/16; the `kubernetes` Service takes the first). */
  serviceCidr?: string;
  /** Pod IPs the controller manager hands out as node podCIDRs (default 10.244.0.0/16, /24 per node). */
  clusterCidr?: string;
  /** Bound on the whole start (default 180 s); on expiry the late component's last 30 log lines are thrown. */
  timeoutMs?: number;
  /** State folder (default a fresh mkdtemp under the OS temp dir); removed by stop() unless `keep`. */
  dir?: string;
  /** Keep the state folder after stop() (logs, certificates, etcd data). */
  keep?: boolean;
}

/** A running control plane: etcd, kube-apiserver, kube-controller-manager, kube-scheduler. */
export interface ControlPlane {
  /** The state folder: certificates, kubeconfigs, etcd data, one log file per component. */
  dir: string;
  /** `https://<bindAddress>:<port>`. */
  server: string;
  /** Admin kubeconfig (bearer token, group system:masters). */
  kubeconfigPath: string;
  /** The admin bearer token. */
  token: string;
  /** The cluster CA certificate (PEM path); clients trust only it. */
  caPath: string;
  /** The CA, to issue certificates for more components (a kubelet: CN system:node:<name>, O system:nodes). */
  pki: ClusterPki;
  /** The running components by name. */
  components: Map<string, Component>;
  /** Writes `<dir>/<file>.kubeconfig` authenticating with a new client certificate for `user`. */
  kubeconfigFor(file: string, user: string, groups?: string[]): string;
  /** Stops kube-apiserver and starts it again on the same port and etcd (a real 410 for old watches). */
  restartApiServer(): Promise<void>;
  /** Stops every component by PID (SIGTERM, SIGKILL after 10 s), then removes the state unless kept. Idempotent. */
  stop(): Promise<void>;
}

const ISSUER = "https://kubernetes.default.svc.cluster.local";

/**
 * Starts a real control plane on loopback (or `bindAddress`) and waits until kube-apiserver answers
 * /livez and /readyz, the controller manager and scheduler /healthz, and the controllers have made the
 * `default` ServiceAccount. Every process is stopped on failure before the error is thrown.
 */
export async function startControlPlane(o: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const bin = k8sBinaries(["kube-apiserver", "kube-controller-manager", "kube-scheduler"]);
  const etcdBin = which("etcd", "apt-get install etcd-server");
  const t0 = Date.now();
  const deadline = t0 + (o.timeoutMs ?? 180_000);
  const bind = o.bindAddress ?? "127.0.0.1";
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), "thaw-cluster-"));
  mkdirSync(dir, { recursive: true });
  const components = new Map<string, Component>();
  const stop = async () => {
    await Promise.all([...components.values()].reverse().map((c) => c.stop()));
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const pki = createPki(dir);
    const sa = createServiceAccountKey(dir);
    const serviceCidr = o.serviceCidr ?? "10.96.0.0/16";
    const serviceIp = firstServiceIp(serviceCidr);
    const serving = pki.serving(
      "apiserver",
      "kube-apiserver",
      [...new Set(["127.0.0.1", bind, serviceIp])],
      [
        "localhost",
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        "kubernetes.default.svc.cluster.local",
      ],
    );
    const kubeletClient = pki.client("apiserver-kubelet-client", "kube-apiserver-kubelet-client", [
      "system:masters",
    ]);
    const token = randomBytes(24).toString("hex");
    const tokens = join(dir, "tokens.csv");
    writeFileSync(tokens, `${token},thaw-admin,thaw-admin,"system:masters"\n`, { mode: 0o600 });

    const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort(bind)];
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const etcd = startComponent(
      "etcd",
      etcdBin,
      [
        "--name=thaw",
        `--data-dir=${join(dir, "etcd")}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-cluster=thaw=http://127.0.0.1:${peerPort}`,
        "--log-level=warn",
      ],
      dir,
    );
    components.set("etcd", etcd);
    await waitReady(etcd, "healthy", async () => (await fetch(`${etcdUrl}/health`)).ok, deadline);

    const server = `https://${bind.includes(":") ? `[${bind}]` : bind}:${apiPort}`;
    const ca = readFileSync(pki.ca.cert);
    const apiArgs = [
      `--etcd-servers=${etcdUrl}`,
      `--bind-address=${bind}`,
      `--advertise-address=${bind}`,
      `--secure-port=${apiPort}`,
      `--tls-cert-file=${serving.cert}`,
      `--tls-private-key-file=${serving.key}`,
      `--client-ca-file=${pki.ca.cert}`,
      `--token-auth-file=${tokens}`,
      "--authorization-mode=Node,RBAC",
      `--service-account-issuer=${ISSUER}`,
      `--api-audiences=${ISSUER}`,
      `--service-account-key-file=${sa.pub}`,
      `--service-account-signing-key-file=${sa.key}`,
      `--service-cluster-ip-range=${serviceCidr}`,
      // A loopback advertise address cannot go into the kubernetes Endpoints: nothing reconciles them.
      // Any other (a node's host end) does, so pods reach the API server at kubernetes.default.
      `--endpoint-reconciler-type=${bind.startsWith("127.") || bind === "::1" ? "none" : "lease"}`,
      `--kubelet-client-certificate=${kubeletClient.cert}`,
      `--kubelet-client-key=${kubeletClient.key}`,
      `--cert-dir=${join(dir, "apiserver-certs")}`,
      "--allow-privileged=true",
      "--profiling=false",
      // Nodes' host names resolve nowhere here: reach a kubelet (exec, logs) at its InternalIP.
      "--kubelet-preferred-address-types=InternalIP,Hostname",
    ];
    const startApi = async () => {
      const api = startComponent("kube-apiserver", bin["kube-apiserver"], apiArgs, dir);
      components.set("kube-apiserver", api);
      for (const path of ["/livez", "/readyz"]) {
        const ok = async () => (await probe(`${server}${path}`, { ca, token })).status === 200;
        await waitReady(api, `answering ${path}`, ok, deadline);
      }
    };
    await startApi();
    const kubeconfigPath = writeKubeconfig(join(dir, "admin.kubeconfig"), server, pki.ca.cert, { token });
    const kubeconfigFor = (file: string, user: string, groups: string[] = []) =>
      writeKubeconfig(join(dir, `${file}.kubeconfig`), server, pki.ca.cert, pki.client(file, user, groups));

    const cmPort = await freePort();
    const cmConfig = kubeconfigFor("controller-manager", "system:kube-controller-manager");
    const cm = startComponent(
      "kube-controller-manager",
      bin["kube-controller-manager"],
      [
        ...componentArgs(cmConfig, cmPort, join(dir, "cm-certs")),
        // With RBAC each controller must act as its own ServiceAccount (else: replicasets.apps is forbidden).
        "--use-service-account-credentials=true",
        `--service-account-private-key-file=${sa.key}`,
        `--root-ca-file=${pki.ca.cert}`,
        `--cluster-signing-cert-file=${pki.ca.cert}`,
        `--cluster-signing-key-file=${pki.ca.key}`,
        `--service-cluster-ip-range=${serviceCidr}`,
        `--cluster-cidr=${o.clusterCidr ?? "10.244.0.0/16"}`,
        "--allocate-node-cidrs=true",
        "--node-cidr-mask-size=24",
      ],
      dir,
    );
    components.set("kube-controller-manager", cm);
    const schedPort = await freePort();
    const schedConfig = kubeconfigFor("scheduler", "system:kube-scheduler");
    const sched = startComponent(
      "kube-scheduler",
      bin["kube-scheduler"],
      componentArgs(schedConfig, schedPort, join(dir, "scheduler-certs")),
      dir,
    );
    components.set("kube-scheduler", sched);
    const healthy = (port: number) => async () =>
      (await probe(`https://127.0.0.1:${port}/healthz`)).status === 200;
    await waitReady(cm, "answering /healthz", healthy(cmPort), deadline);
    await waitReady(sched, "answering /healthz", healthy(schedPort), deadline);
    const saUrl = `${server}/api/v1/namespaces/default/serviceaccounts/default`;
    await waitReady(
      cm,
      "making the default ServiceAccount",
      async () => (await probe(saUrl, { ca, token })).status === 200,
      deadline,
    );

    return {
      dir,
      server,
      kubeconfigPath,
      token,
      caPath: pki.ca.cert,
      pki,
      components,
      kubeconfigFor,
      async restartApiServer() {
        await components.get("kube-apiserver")?.stop();
        const restartBy = Date.now() + (o.timeoutMs ?? 180_000);
        const api = startComponent("kube-apiserver", bin["kube-apiserver"], apiArgs, dir);
        components.set("kube-apiserver", api);
        for (const path of ["/livez", "/readyz"]) {
          const ok = async () => (await probe(`${server}${path}`, { ca, token })).status === 200;
          await waitReady(api, `answering ${path} after the restart`, ok, restartBy);
        }
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** Flags the controller manager and the scheduler share: their kubeconfig and a loopback health port. */
function componentArgs(kubeconfig: string, port: number, certDir: string): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    "--bind-address=127.0.0.1",
    `--secure-port=${port}`,
    `--cert-dir=${certDir}`,
    "--leader-elect=false",
  ];
}

function firstServiceIp(cidr: string): string {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/\d+$/.exec(cidr);
  if (!m) throw new Error(`serviceCidr ${cidr}: expected an IPv4 CIDR such as 10.96.0.0/16`);
  return `${m[1]}.${m[2]}.${m[3]}.${Number(m[4]) + 1}`;
}

function which(name: string, fix: string): string {
  try {
    return execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
  } catch {
    throw new Error(`${name} is not on PATH: ${fix}`);
  }
}
