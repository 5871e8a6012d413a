/**
 * The "app" of a container pod: `thaw up` runs this process where a local pod runs `run.command`, so the
 * local scaler's queue-proxy, readiness, drain, crash reporting and dashboard apply to containers unchanged.
 * Replica 1 is the named container: started, or adopted when it already runs. Replica n > 1 is a copy Thaw
 * creates from it (replica.ts), adopted when Thaw's own copy already runs, and removed when its pod stops.
 * It lives as long as the container does; on SIGTERM (after the queue-proxy drained) it stops it with the
 * container's own stop signal and timeout. A container stopped by anyone else ends this process with the
 * container's exit code: the pod died.
 */
import { ATTACH_ENV } from "./attach-main-env.js";
import { type ContainerInspect, EngineClient } from "./engine-api.js";
import { appHostPort, isOurReplica, replicaBody, replicaName } from "./replica.js";

const say = (line: string) => process.stdout.write(`thaw-container: ${line}\n`);
const ms = (t0: number) => `${(performance.now() - t0).toFixed(0)} ms`;

/** The container this pod runs, started or adopted; undefined (after saying why) when it cannot be. */
async function bringUp(
  engine: EngineClient,
  first: string,
  index: number,
  port: number,
  hostPort: number,
): Promise<{ id: string; name: string; replica: boolean } | undefined> {
  const original = await engine.inspect(first);
  if (!original) {
    say(
      `no container named ${first} on ${engine.socketPath}: create it first (e.g. podman create --name ${first} ...)`,
    );
    return undefined;
  }
  let id = original.Id;
  let name = first;
  let running = original.State.Running;
  if (index > 1) {
    name = replicaName(first, index);
    const existing = await engine.inspect(name);
    if (existing && !isOurReplica(existing, first, index)) {
      say(
        `a container named ${name} exists that Thaw did not create: it is left alone; rename or remove it so ${first} can have ${index} replicas`,
      );
      return undefined;
    }
    // Thaw's own copy is adopted when it runs where this pod expects it (thaw up restarted), else made anew.
    running =
      (existing?.State.Running ?? false) && appHostPort(existing as ContainerInspect, port) === hostPort;
    if (existing && !running) await engine.remove(existing.Id);
    if (existing && running) id = existing.Id;
    else {
      const t0 = performance.now();
      id = await engine.create(name, replicaBody(original, { firstName: first, index, port, hostPort }));
      say(`created ${name} in ${ms(t0)}`);
    }
  }
  if (running) say(`adopted ${name}: already running`);
  else {
    const t0 = performance.now();
    await engine.start(id);
    say(`started ${name} in ${ms(t0)}`);
  }
  return { id, name, replica: index > 1 };
}

async function main(): Promise<number> {
  const env = process.env;
  const socket = env[ATTACH_ENV.socket];
  const first = env[ATTACH_ENV.name];
  const index = Number(env[ATTACH_ENV.replica] ?? "1");
  const port = Number(env[ATTACH_ENV.port] ?? "0");
  const hostPort = Number(env.PORT ?? "0");
  if (!socket || !first || !Number.isInteger(index) || index < 1) {
    say(
      `${ATTACH_ENV.socket}, ${ATTACH_ENV.name} and a replica number ${ATTACH_ENV.replica} >= 1 must be set`,
    );
    return 2;
  }
  const engine = new EngineClient(socket);
  let target: { id: string; name: string; replica: boolean } | undefined;
  let stopping: Promise<void> | undefined;
  // Stops it (its own signal and timeout); a replica is then removed: Thaw made it, Thaw clears it away.
  const stop = (t: NonNullable<typeof target>) => {
    stopping ??= (async () => {
      await engine.stop(t.id);
      if (t.replica) await engine.remove(t.id);
    })().catch((e: unknown) => {
      say(`stop ${t.name} failed: ${String(e)}`);
    });
    return stopping;
  };
  let termed = false;
  process.on("SIGTERM", () => {
    termed = true;
    if (target) void stop(target);
  });
  target = await bringUp(engine, first, index, port, hostPort);
  if (!target) return 2;
  if (termed) void stop(target);
  const code = await engine.wait(target.id);
  if (stopping) {
    await stopping;
    say(`stopped ${target.name} (exit ${code})`);
    return 0;
  }
  say(`container ${target.name} stopped outside thaw (exit ${code})`);
  return code === 0 ? 1 : code;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    say(`engine error: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(2);
  },
);
