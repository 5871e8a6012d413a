import { type KubeConfig, Watch } from "@kubernetes/client-node";
import type { Clock, TimerHandle } from "@thaw/clock";
import { Backoff, type BackoffOptions } from "../backoff.js";
import type { KubeObject } from "../types.js";
import { apiFailure } from "./api-error.js";
import { type Logger, silentLogger } from "./logger.js";

/** A list call's answer: the objects and the collection's resourceVersion to watch from. */
export interface ListResult<T> {
  items: T[];
  resourceVersion: string;
}

/** Options of {@link Informer}. */
export interface InformerOptions<T> {
  kubeConfig: KubeConfig;
  /** Lists the collection (with the same selectors as the watch). */
  list: () => Promise<ListResult<T>>;
  /** Collection path, e.g. `/apis/discovery.k8s.io/v1/namespaces/apps/endpointslices`. */
  path: string;
  /** `labelSelector` / `fieldSelector` for the watch. */
  selectors?: { labelSelector?: string; fieldSelector?: string };
  clock: Clock;
  /** [0, 1): backoff jitter. */
  random: () => number;
  /** Asks the server to end each watch after this long (default 300 s); a silent stream is cut at 1.5 x that. */
  timeoutSeconds?: number;
  backoff?: Omit<BackoffOptions, "random">;
  logger?: Logger;
  /**
   * Which objects to hold (default all): one not kept is dropped as if deleted, so a collection read for a
   * few of its objects (a namespace's Events, for the pods followed) costs memory only for those.
   */
  keep?: (object: T) => boolean;
  /** Called with the whole state (by name) after every change, and once after each list. */
  onChange: (objects: ReadonlyMap<string, T>) => void;
}

/**
 * List, then watch from the list's resourceVersion, the way Kubernetes documents it ("efficient detection
 * of changes"): bookmarks move the resourceVersion on, a watch that ends is re-opened from the last one, an
 * `Expired` (410) answer or ERROR event leads to a new list, other failures retry with backoff. The state is
 * only ever replaced by a complete list, never cleared while reconnecting, so a blip in the API connection
 * does not make pods disappear.
 */
export class Informer<T extends KubeObject> {
  readonly #o: InformerOptions<T>;
  readonly #watch: Watch;
  readonly #backoff: Backoff;
  readonly #log: Logger;
  readonly #timeoutSeconds: number;
  #objects = new Map<string, T>();
  #rv: string | undefined;
  #synced = false;
  #stopped = true;
  #abort: AbortController | undefined;
  #timer: TimerHandle | undefined;
  #watchdog: TimerHandle | undefined;
  #lists = 0;
  #watches = 0;

  constructor(o: InformerOptions<T>) {
    this.#o = o;
    this.#watch = new Watch(o.kubeConfig);
    this.#backoff = new Backoff({ ...o.backoff, random: o.random });
    this.#log = o.logger ?? silentLogger;
    this.#timeoutSeconds = o.timeoutSeconds ?? 300;
  }

  /** The objects now, by name. */
  get objects(): ReadonlyMap<string, T> {
    return this.#objects;
  }

  /** True once a list succeeded. */
  get synced(): boolean {
    return this.#synced;
  }

  /** The resourceVersion the next watch starts from. */
  get resourceVersion(): string | undefined {
    return this.#rv;
  }

  /** Lists and watches made so far (tests, metrics). */
  get counts(): { lists: number; watches: number } {
    return { lists: this.#lists, watches: this.#watches };
  }

  /** Starts listing and watching. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    void this.#relist();
  }

  /** Stops every request and timer; the last state stays readable. */
  stop(): void {
    this.#stopped = true;
    this.#abort?.abort();
    this.#abort = undefined;
    this.#clearTimers();
  }

  #clearTimers(): void {
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    if (this.#watchdog !== undefined) this.#o.clock.clearTimeout(this.#watchdog);
    this.#timer = undefined;
    this.#watchdog = undefined;
  }

  #later(fn: () => void, ms: number): void {
    if (this.#stopped) return;
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#timer = undefined;
      if (!this.#stopped) fn();
    }, ms);
  }

  async #relist(): Promise<void> {
    this.#lists++;
    let res: ListResult<T>;
    try {
      res = await this.#o.list();
    } catch (err) {
      const f = apiFailure(err, `list ${this.#o.path}`);
      const delay = Math.max(this.#backoff.next(), (f.retryAfterSeconds ?? 0) * 1000);
      this.#log.warn("list failed; retrying", { error: f.message, retryInMs: delay });
      this.#later(() => void this.#relist(), delay);
      return;
    }
    if (this.#stopped) return;
    const next = new Map<string, T>();
    for (const item of res.items) if (this.#o.keep?.(item) ?? true) next.set(nameOf(item), item);
    // Replaced in one step: subscribers never see an empty state between two lists.
    this.#objects = next;
    this.#rv = res.resourceVersion;
    this.#synced = true;
    this.#o.onChange(this.#objects);
    void this.#startWatch();
  }

  async #startWatch(): Promise<void> {
    if (this.#stopped) return;
    this.#watches++;
    const startedAt = this.#o.clock.now();
    let expired = false;
    let events = 0;
    let finished = false;
    const finish = (err: unknown) => {
      if (finished) return;
      finished = true;
      if (this.#watchdog !== undefined) this.#o.clock.clearTimeout(this.#watchdog);
      this.#watchdog = undefined;
      if (this.#stopped) return;
      const f = err ? apiFailure(err, `watch ${this.#o.path}`) : undefined;
      if (expired || f?.status === 410) {
        const delay = this.#backoff.next();
        this.#log.info("watch expired; listing again", { resourceVersion: this.#rv, inMs: delay });
        this.#later(() => void this.#relist(), delay);
      } else if (f || (events === 0 && this.#o.clock.now() - startedAt < 1000)) {
        // Failed, or ended at once with nothing said: wait before asking again.
        const delay = Math.max(this.#backoff.next(), (f?.retryAfterSeconds ?? 0) * 1000);
        if (f) this.#log.warn("watch failed; retrying", { error: f.message, retryInMs: delay });
        this.#later(() => void this.#startWatch(), delay);
      } else {
        this.#backoff.reset();
        void this.#startWatch();
      }
    };
    const armWatchdog = () => {
      if (this.#watchdog !== undefined) this.#o.clock.clearTimeout(this.#watchdog);
      // A half-open connection never ends on its own: give up on a stream silent past its own timeout.
      this.#watchdog = this.#o.clock.setTimeout(() => {
        this.#watchdog = undefined;
        this.#log.warn("watch silent past its timeout; reconnecting", { path: this.#o.path });
        ctl?.abort();
        finish(undefined);
      }, this.#timeoutSeconds * 1500);
    };
    let ctl: AbortController | undefined;
    armWatchdog();
    try {
      ctl = await this.#watch.watch(
        this.#o.path,
        {
          ...this.#o.selectors,
          resourceVersion: this.#rv,
          allowWatchBookmarks: true,
          timeoutSeconds: this.#timeoutSeconds,
        },
        (type: string, obj: T & { code?: number; reason?: string; message?: string }) => {
          if (finished || this.#stopped) return;
          events++;
          armWatchdog();
          this.#onEvent(type, obj, () => {
            expired = true;
          });
        },
        finish,
      );
    } catch (err) {
      // The client throws before any request when its configuration is unusable.
      finish(err);
      return;
    }
    if (finished || this.#stopped) ctl.abort();
    else this.#abort = ctl;
  }

  #onEvent(type: string, obj: T & { code?: number; message?: string }, onExpired: () => void): void {
    const rv = obj?.metadata?.resourceVersion;
    if (type === "ERROR") {
      if (obj?.code === 410) onExpired();
      else this.#log.warn("watch ERROR event", { code: obj?.code, message: obj?.message });
      return;
    }
    if (type === "BOOKMARK") {
      if (rv) this.#rv = rv;
      return;
    }
    if (type !== "ADDED" && type !== "MODIFIED" && type !== "DELETED") return;
    const drop = type === "DELETED" || !(this.#o.keep?.(obj) ?? true);
    if (drop && !this.#objects.has(nameOf(obj))) {
      // Nothing held changes: move on without telling anyone.
      if (rv) this.#rv = rv;
      return;
    }
    const next = new Map(this.#objects);
    if (drop) next.delete(nameOf(obj));
    else next.set(nameOf(obj), obj);
    this.#objects = next;
    if (rv) this.#rv = rv;
    this.#backoff.reset();
    this.#o.onChange(this.#objects);
  }
}

function nameOf(o: KubeObject): string {
  return `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
}
