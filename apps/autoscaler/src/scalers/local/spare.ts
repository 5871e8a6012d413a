import type { Logger } from "../../logger.js";
import { type GroupChild, spawnGroup } from "./child.js";

/** Options of {@link Spare}. */
export interface SpareOptions {
  /** What the spare is, in log lines ("spare queue-proxy"). */
  what: string;
  /** argv of the process to keep waiting. */
  command: readonly string[];
  /** Its whole environment. */
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  /** Pause before replacing a spare that died while waiting (default 1 s). */
  restartDelayMs?: number;
  /** Spares in a row that die while waiting before spares are given up (default 3): spawning stays. */
  maxCrashes?: number;
  /** The output line by which a spare says it is warm and waiting; without one, a spare waits once spawned. */
  waitingLine?: string;
}

type LineSink = (line: string) => void;

/**
 * One process started ahead of the next pod and waiting on its stdin, so a cold start neither waits for it
 * to boot nor stalls this (large) process with a fork. A pod {@link take}s it and sends it what it needs;
 * the owner calls {@link warm} for the next one once the pod is ready, so the new spare does not compete
 * with a cold start for the CPU. A spare that dies while waiting is replaced after a pause; after
 * `maxCrashes` such deaths in a row spares are given up and pods spawn as before. A spare whose supervisor
 * dies reads end-of-file on stdin and exits.
 */
export class Spare {
  readonly #o: SpareOptions;
  #child: { proc: GroupChild; setSink: (s: LineSink) => void; waiting: Promise<void> } | undefined;
  #crashes = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #taken = 0;

  constructor(options: SpareOptions) {
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

  /**
   * Resolves once the current spare is warm and waiting, or is gone, or when there is none: what a caller
   * that wants the next cold start fast (thaw up before its listening line) waits for.
   */
  waiting(): Promise<void> {
    return this.#child?.waiting ?? Promise.resolve();
  }

  /** Starts a spare unless one is waiting (idempotent; no-op once closed or given up). */
  warm(): void {
    if (this.#closed || this.#child || this.#timer || this.#crashes >= (this.#o.maxCrashes ?? 3)) return;
    const { what, logger, waitingLine } = this.#o;
    let sink: LineSink | undefined;
    let isWaiting = () => {};
    const waiting = new Promise<void>((resolve) => {
      isWaiting = resolve;
    });
    if (waitingLine === undefined) isWaiting();
    const proc = spawnGroup(this.#o.command, {
      env: { ...this.#o.env },
      stdin: true,
      // Lines before the take are logged (a crash report), but the waiting line; after it they are the pod's.
      onLine: (_s, line) => {
        if (sink) sink(line);
        else if (line === waitingLine) isWaiting();
        else logger.warn(what, { pid: proc.pid, line });
      },
    });
    void proc.exited.then(() => isWaiting());
    const child = {
      proc,
      waiting,
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
      logger.warn(`${what} exited while waiting`, { code, crashes: this.#crashes });
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.warm();
      }, this.#o.restartDelayMs ?? 1000);
    });
  }

  /**
   * Hands the waiting spare to a pod: `message` (one or more lines) goes to its stdin, its output to `onLine`
   * from now on. Undefined when no live spare waits (the pod spawns its process then).
   */
  take(message: string, onLine: LineSink): GroupChild | undefined {
    const child = this.#child;
    if (!child?.proc.alive) return undefined;
    child.setSink(onLine);
    if (!child.proc.writeLine(message)) return undefined;
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
