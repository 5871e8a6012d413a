/**
 * The "app" of a container pod: `thaw up` runs this process where a local pod runs `run.command`, so the
 * local scaler's queue-proxy, readiness, drain, crash reporting and dashboard apply to containers unchanged.
 * It starts the named container through the engine API (or adopts it when it already runs), lives as long
 * as the container does, and on SIGTERM stops it with the container's own stop signal and timeout. A
 * container stopped by anyone else ends this process with the container's exit code: the pod died.
 */
import { ATTACH_ENV } from "./attach-main-env.js";
import { EngineClient } from "./engine-api.js";

const say = (line: string) => process.stdout.write(`thaw-container: ${line}\n`);

async function main(): Promise<number> {
  const socket = process.env[ATTACH_ENV.socket];
  const name = process.env[ATTACH_ENV.name];
  if (!socket || !name) {
    say(`${ATTACH_ENV.socket} and ${ATTACH_ENV.name} must be set`);
    return 2;
  }
  const engine = new EngineClient(socket);
  let stopping: Promise<void> | undefined;
  const stop = (id: string) => {
    stopping ??= engine.stop(id).catch((e: unknown) => {
      say(`stop ${name} failed: ${String(e)}`);
    });
    return stopping;
  };
  let id: string | undefined;
  let termed = false;
  process.on("SIGTERM", () => {
    termed = true;
    if (id) void stop(id);
  });
  const found = await engine.inspect(name);
  if (!found) {
    say(`no container named ${name} on ${socket}: create it first (e.g. podman create --name ${name} ...)`);
    return 2;
  }
  id = found.Id;
  if (found.State.Running) say(`adopted ${name}: already running`);
  else {
    const t0 = performance.now();
    await engine.start(id);
    say(`started ${name} in ${(performance.now() - t0).toFixed(0)} ms`);
  }
  if (termed) void stop(id);
  const code = await engine.wait(id);
  if (stopping) {
    await stopping;
    say(`stopped ${name} (exit ${code})`);
    return 0;
  }
  say(`container ${name} stopped outside thaw (exit ${code})`);
  return code === 0 ? 1 : code;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    say(`engine error: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(2);
  },
);
