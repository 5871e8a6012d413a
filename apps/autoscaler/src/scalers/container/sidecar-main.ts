/**
 * The queue-proxy of a container pod run as a container (`container.queueProxy: container`): `thaw up` runs
 * this process where a pod runs its queue-proxy, so the pod's probes, drain order and crash reporting apply
 * unchanged. It creates the queue-proxy container in the app container's network namespace (as the
 * containers of a Kubernetes pod share one) with Knative's variables, starts it once the app container runs,
 * and waits on it. On SIGTERM (the pod stops, before its app) the engine stops it with SIGTERM, on which the
 * queue-proxy drains: only once it exited does the pod stop the app container, as Knative's preStop hook
 * holds the app's stop until `/wait-for-drain` returns. It is then removed: Thaw made it, Thaw clears it.
 */

import { QUEUE_PROXY_RUNNER_ENV } from "../local/runner-env.js";
import { ATTACH_ENV } from "./attach-main-env.js";
import { type ContainerInspect, EngineClient } from "./engine-api.js";
import { replicaName } from "./replica.js";
import { SIDECAR_ENV, SIDECAR_LABEL, sidecarBody, sidecarName } from "./sidecar.js";

const say = (line: string) => process.stdout.write(`thaw-queue-proxy-container: ${line}\n`);
const ms = (t0: number) => `${(performance.now() - t0).toFixed(0)} ms`;

/** Longest wait for the app container to run (its attach process creates or starts it meanwhile). */
const APP_WAIT_MS = 120_000;
const POLL_MS = 20;

async function main(): Promise<number> {
  const env = process.env;
  const socket = env[ATTACH_ENV.socket];
  const first = env[ATTACH_ENV.name];
  const index = Number(env[ATTACH_ENV.replica] ?? "1");
  const image = env[SIDECAR_ENV.image];
  const stopTimeoutS = Number(env[QUEUE_PROXY_RUNNER_ENV.stopTimeout] ?? "30");
  let qpEnv: Record<string, string>;
  try {
    qpEnv = JSON.parse(env[QUEUE_PROXY_RUNNER_ENV.env] ?? "") as Record<string, string>;
  } catch {
    say(`${QUEUE_PROXY_RUNNER_ENV.env} must be the queue-proxy's environment as a JSON object`);
    return 2;
  }
  if (!socket || !first || !image || !Number.isInteger(index) || index < 1) {
    say(
      `${ATTACH_ENV.socket}, ${ATTACH_ENV.name}, ${SIDECAR_ENV.image} and a replica number >= 1 must be set`,
    );
    return 2;
  }
  const engine = new EngineClient(socket);
  const app = index === 1 ? first : replicaName(first, index);
  const name = sidecarName(app);
  let termed = false;
  let id: string | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (cid: string) => {
    stopping ??= (async () => {
      const t0 = performance.now();
      await engine.stop(cid);
      say(`stopped ${name} in ${ms(t0)} (drained)`);
      await engine.remove(cid);
    })().catch((e: unknown) => {
      say(`stop ${name} failed: ${String(e)}`);
    });
    return stopping;
  };
  process.on("SIGTERM", () => {
    termed = true;
    if (id) void stop(id);
  });

  // A queue-proxy container left by an earlier pod of this replica is Thaw's: removed, made anew with this
  // pod's ports. One Thaw did not make is left alone.
  const stale = await engine.inspect(name);
  if (stale && stale.Config.Labels?.[SIDECAR_LABEL] !== app) {
    say(`a container named ${name} exists that Thaw did not create: it is left alone; rename or remove it`);
    return 2;
  }
  if (stale) await engine.remove(stale.Id);

  // The app container is started (replica 1) or made anew and started (2, 3, ...) by its own attach
  // process meanwhile. The queue-proxy joins its network namespace, so it is started once the app container
  // runs; for replica 1, which is never replaced, it is created before, while the app starts.
  const t0 = performance.now();
  let target: ContainerInspect | undefined;
  for (let waited = 0; !termed && waited < APP_WAIT_MS; waited += POLL_MS) {
    target = await engine.inspect(app);
    if (target && !id && (index === 1 || target.State.Running)) {
      id = await engine.create(name, sidecarBody({ image, env: qpEnv, app, appId: target.Id, stopTimeoutS }));
      say(`created ${name} in ${ms(t0)}`);
    }
    if (target?.State.Running) break;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  if (termed || !id || !target?.State.Running) {
    if (id) await engine.remove(id);
    if (!termed) say(`container ${app} did not run within ${APP_WAIT_MS / 1000} s: ${name} not started`);
    return termed ? 0 : 2;
  }
  const t1 = performance.now();
  await engine.start(id);
  say(`started ${name} in ${ms(t1)}`);
  if (termed) void stop(id);
  const code = await engine.wait(id);
  if (stopping) {
    await stopping;
    return 0;
  }
  say(`container ${name} stopped outside thaw (exit ${code})`);
  await engine.remove(id).catch(() => {});
  return code === 0 ? 1 : code;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    say(`engine error: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(2);
  },
);
