import type { Logger } from "../../logger.js";
import { type GroupChild, spawnGroup } from "./child.js";

/** The variable that starts `thaw-queue-proxy` in spare mode (apps/queue-proxy/README.md). */
export const SPARE_ENV = "THAW_QUEUE_PROXY_SPARE";

/** Options of {@link SpareQueueProxy}. */
export interface SpareQueueProxyOptions {
  /** argv of a queue-proxy that supports spare mode (Thaw's own). */
  command: readonly string[];
  /** Environment the spare inherits (the pod's env is laid over it when taken). */
  baseEnv: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  /** Pause before replacing a spare that died while waiting (default 1 s). */
  restartDelayMs?: number;
  /** Spares in a row that die while waiting before spares are given up (default 3): spawning stays. */
  maxCrashes?: number;
}

type LineSink = (line: string) => void;

/**
 * One queue-proxy process started ahead of the next pod (modules loaded, no port bound) so a cold start
 * does not wait for a second Node process to boot beside the app. A pod {@link take}s it and sends it its
 * env; the owner calls {@link warm} for the next one once the pod is ready, so the new spare does not
 * compete with a cold start for the CPU. A spare that dies while waiting is replaced after a pause; after
 * `maxCrashes` such deaths in a row spares are given up and pods spawn their queue-proxy as before. A
 * spare whose supervisor dies reads end-of-file on stdin and exits.
 */
export class SpareQueueProxy {
  readonly #o: SpareQueueProxyOptions;
  #child: { proc: GroupChild; setSink: (s: LineSink) => void } | undefined;
  #crashes = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #taken = 0;

  constructor(options: SpareQueueProxyOptions) {
    this.#o = options;
  }

  /** Pods that started with a spare (tests and the benchmark check it is used). */
  get taken(): number {
    return this.#taken;
  }

  /** The waiting spare's pid, if one is up. */
  get pid(): number | undefined {
    return this.#child?.proc.alive ? this.#child.proc.pid : undefined;
  }

  /** Starts a spare unless one is waiting (idempotent; no-op once closed or given up). */
  warm(): void {
    if (this.#closed || this.#child || this.#timer || this.#crashes >= (this.#o.maxCrashes ?? 3)) return;
    let sink: LineSink | undefined;
    const proc = spawnGroup(this.#o.command, {
      env: { ...this.#o.baseEnv, [SPARE_ENV]: "1" },
      stdin: true,
      // Lines before the take (a crash report) are logged; after it they are the pod's.
      onLine: (_s, line) =>
        sink ? sink(line) : this.#o.logger.warn("spare queue-proxy", { pid: proc.pid, line }),
    });
    const child = {
      proc,
      setSink: (s: LineSink) => {
        sink = s;
      },
    };
    this.#child = child;
    void proc.exited.then((code) => {
      if (this.#child !== child) return;
      // Died while waiting: replace it after a pause, unless it keeps dying.
      this.#child = undefined;
      if (this.#closed) return;
      this.#crashes++;
      this.#o.logger.warn("spare queue-proxy exited while waiting", { code, crashes: this.#crashes });
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.warm();
      }, this.#o.restartDelayMs ?? 1000);
    });
  }

  /**
   * Hands the waiting spare to a pod: `env` goes to its stdin, its output to `onLine` from now on.
   * Undefined when no live spare waits (the pod spawns its queue-proxy then).
   */
  take(env: Readonly<Record<string, string>>, onLine: LineSink): GroupChild | undefined {
    const child = this.#child;
    if (!child?.proc.alive) return undefined;
    child.setSink(onLine);
    if (!child.proc.writeLine(JSON.stringify(env))) return undefined;
    this.#child = undefined;
    this.#crashes = 0;
    this.#taken++;
    return child.proc;
  }

  /** Stops the waiting spare (SIGKILL: it serves nothing) and starts no more. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    const child = this.#child;
    this.#child = undefined;
    if (!child) return;
    child.proc.signal("SIGKILL");
    await child.proc.exited;
  }
}
