/**
 * A STAND-IN KUBELET for the end-to-end test (no real kubelet or API server runs here): it reads one
 * Deployment's `spec.replicas` from the emulated API server over HTTP, runs each replica's pod as real
 * local processes from the Deployment's rendered pod template, runs the rendered readiness probes, and
 * writes the Service's EndpointSlices as the EndpointSlice controller would. Termination follows kubelet's
 * documented order: the endpoint turns terminating, each container's preStop runs and then that container
 * gets SIGTERM (containers in parallel), and whatever still runs at the grace period's end gets SIGKILL.
 *
 * Pods share loopback, so each gets its own address 127.0.0.<n> (all of 127/8 reaches lo on Linux) and
 * its ports are mapped: a container that listens on the pod IP keeps one free port per containerPort for
 * every pod (as in a cluster, where each pod has its own IP and the same ports); a container that listens
 * on the pod's localhost (the app, on 127.0.0.1) gets free ports of its own per pod. Env values equal to a
 * mapped containerPort, and the port in SERVING_READINESS_PROBE, are rewritten to the mapped port.
 */
import { randomUUID } from "node:crypto";
import type { EmulatedApiServer } from "@thaw/kubernetes/node/testing";
import { freePort } from "../../../ingress-hook/test/support/nginx-process.js";
import { startNode } from "./child.js";
import { writeSlices } from "./endpoint-slices.js";
import { type Container, type HttpGet, type Pod, type PodTemplate, podEnv } from "./pod-spec.js";

export type { Pod, PodTemplate } from "./pod-spec.js";

/** How an image runs here: a script under this machine's node, where it listens, env it needs beyond the spec. */
export interface LocalImage {
  args: string[];
  listensOn: "podIP" | "localhost";
  extraEnv?: (pod: Pod) => Record<string, string>;
}

/** What happened to pods, in order (for the test's assertions). */
export interface KubeletEvent {
  pod: string;
  what: string;
  at: number;
}

/** Options of {@link StandInKubelet}. */
export interface KubeletOptions {
  api: EmulatedApiServer;
  token: string;
  namespace: string;
  deployment: string;
  template: PodTemplate;
  /** The Service whose EndpointSlices this writes: its ports name the containers' ports (targetPort). */
  service: { name: string; ports: { name: string; targetPort: string | number }[] };
  images: Record<string, LocalImage>;
  cwd: string;
  /** Also write an IPv6 slice for the same pods (a dual-stack Service). */
  dualStack: boolean;
  /** Readiness probe period (kubelet's default is 10 s; shorter here to keep the test short). */
  probePeriodMs: number;
}

/** The stand-in kubelet plus the EndpointSlice controller for one Deployment (see the file comment). */
export class StandInKubelet {
  readonly pods = new Map<string, Pod>();
  readonly events: KubeletEvent[] = [];
  #shared = new Map<number, number>();
  #next = 0;
  #loop?: NodeJS.Timeout;
  #busy = false;

  constructor(private readonly o: KubeletOptions) {}

  /** The host port every pod uses for a pod-IP containerPort (e.g. the queue-proxy's 9090). */
  sharedPort(containerPort: number): number {
    const p = this.#shared.get(containerPort);
    if (p === undefined) throw new Error(`no shared port for ${containerPort}`);
    return p;
  }

  /** Picks the shared ports and starts following the Deployment. */
  async start(): Promise<void> {
    for (const c of this.o.template.containers) {
      if (this.#image(c).listensOn !== "podIP") continue;
      for (const p of c.ports ?? []) this.#shared.set(p.containerPort, await freePort());
    }
    this.#publish();
    this.#loop = setInterval(() => void this.#reconcile(), 200);
  }

  /** Pods not terminating. */
  running(): Pod[] {
    return [...this.pods.values()].filter((p) => !p.terminating);
  }

  /** Terminates one pod as an eviction would (the Deployment then gets a replacement). */
  evict(name: string): Promise<void> {
    const pod = this.pods.get(name);
    if (!pod) throw new Error(`no pod ${name}`);
    return this.#terminate(pod);
  }

  /** Stops following and SIGKILLs every process. */
  async stop(): Promise<void> {
    clearInterval(this.#loop);
    for (const pod of this.pods.values()) {
      clearInterval(pod.timer);
      for (const c of pod.procs.values()) c.child.kill("SIGKILL");
    }
    await Promise.all([...this.pods.values()].flatMap((p) => [...p.procs.values()].map((c) => c.exited)));
  }

  #image(c: Container): LocalImage {
    const img = this.o.images[c.image];
    if (!img) throw new Error(`no local program for image ${c.image}`);
    return img;
  }

  #log(pod: string, what: string): void {
    this.events.push({ pod, what, at: Date.now() });
  }

  async #desired(): Promise<number | undefined> {
    const { namespace: ns, deployment: name } = this.o;
    const res = await fetch(`${this.o.api.url}/apis/apps/v1/namespaces/${ns}/deployments/${name}`, {
      headers: { authorization: `Bearer ${this.o.token}` },
    }).catch(() => undefined);
    if (!res?.ok) return undefined;
    const dep = (await res.json()) as { spec?: { replicas?: number } };
    return dep.spec?.replicas ?? 1;
  }

  async #reconcile(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      const want = await this.#desired();
      if (want === undefined) return;
      const alive = this.running();
      for (let i = alive.length; i < want; i++) await this.#startPod();
      // Like a ReplicaSet: not-ready pods go first, then the newest.
      const extra = alive
        .sort((a, b) => Number(a.ready) - Number(b.ready) || b.name.localeCompare(a.name))
        .slice(0, Math.max(0, alive.length - want));
      for (const pod of extra) void this.#terminate(pod);
    } finally {
      this.#busy = false;
    }
  }

  async #startPod(): Promise<void> {
    const n = this.#next++;
    const pod: Pod = {
      name: `${this.o.deployment}-${String(n).padStart(3, "0")}`,
      uid: randomUUID(),
      ip: `127.0.0.${20 + (n % 200)}`,
      ports: new Map(),
      procs: new Map(),
      ready: false,
      terminating: false,
      failures: 0,
    };
    for (const c of this.o.template.containers) {
      const own = this.#image(c).listensOn === "localhost";
      for (const p of c.ports ?? [])
        pod.ports.set(p.containerPort, own ? await freePort() : this.sharedPort(p.containerPort));
    }
    this.pods.set(pod.name, pod);
    for (const c of this.o.template.containers) {
      const img = this.#image(c);
      const env = { ...podEnv(c, pod, this.o.namespace), ...(img.extraEnv?.(pod) ?? {}) };
      pod.procs.set(c.name, startNode(img.args, this.o.cwd, env));
    }
    this.#log(pod.name, "started");
    this.#publish();
    pod.timer = setInterval(() => void this.#probe(pod), this.o.probePeriodMs);
  }

  #portOf(get: HttpGet, pod: Pod): number {
    const all = this.o.template.containers.flatMap((c) => c.ports ?? []);
    const n = typeof get.port === "number" ? get.port : all.find((p) => p.name === get.port)?.containerPort;
    const mapped = n === undefined ? undefined : pod.ports.get(n);
    if (mapped === undefined) throw new Error(`pod ${pod.name}: no port ${get.port}`);
    return mapped;
  }

  async #httpGet(get: HttpGet, pod: Pod, timeoutMs: number): Promise<number> {
    const headers: Record<string, string> = { "user-agent": "kube-probe/1.31" };
    for (const h of get.httpHeaders ?? []) headers[h.name] = h.value;
    const url = `http://${pod.ip}:${this.#portOf(get, pod)}${get.path ?? "/"}`;
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.status;
  }

  /** The readiness probes of the pod's containers (kubelet: 200–399 passes; failureThreshold 3). */
  async #probe(pod: Pod): Promise<void> {
    const probes = this.o.template.containers.flatMap((c) => c.readinessProbe?.httpGet ?? []);
    let ok = true;
    for (const get of probes) {
      const status = await this.#httpGet(get, pod, 1000).catch(() => 0);
      ok &&= status >= 200 && status < 400;
    }
    pod.failures = ok ? 0 : pod.failures + 1;
    const ready = ok ? true : pod.ready && pod.failures < 3;
    if (ready === pod.ready || !this.pods.has(pod.name)) return;
    pod.ready = ready;
    this.#log(pod.name, ready ? "ready" : "not ready");
    this.#publish();
  }

  async #terminate(pod: Pod): Promise<void> {
    if (pod.terminating) return;
    pod.terminating = true;
    this.#log(pod.name, "terminating");
    this.#publish();
    const graceMs = (this.o.template.terminationGracePeriodSeconds ?? 30) * 1000;
    const deadline = Date.now() + graceMs;
    const kill = setTimeout(() => {
      for (const [name, c] of pod.procs) {
        if (c.child.exitCode === null && c.child.signalCode === null) {
          this.#log(pod.name, `SIGKILL ${name}`);
          c.child.kill("SIGKILL");
        }
      }
    }, graceMs);
    await Promise.all(
      this.o.template.containers.map(async (c) => {
        const hook = c.lifecycle?.preStop?.httpGet;
        if (hook) {
          this.#log(pod.name, `preStop ${c.name}`);
          const status = await this.#httpGet(hook, pod, Math.max(1, deadline - Date.now())).catch(() => 0);
          this.#log(pod.name, `preStop ${c.name} answered ${status}`);
        }
        this.#log(pod.name, `SIGTERM ${c.name}`);
        pod.procs.get(c.name)?.child.kill("SIGTERM");
      }),
    );
    await Promise.all([...pod.procs.values()].map((c) => c.exited));
    clearTimeout(kill);
    clearInterval(pod.timer);
    this.pods.delete(pod.name);
    this.#log(pod.name, "gone");
    this.#publish();
  }

  #publish(): void {
    writeSlices(this.o, [...this.pods.values()], (p) => this.sharedPort(p));
  }
}
