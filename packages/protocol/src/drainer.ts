import type { Clock, TimerHandle } from "@thaw/clock";
import { isHealthCheckRequest, isKProbe } from "./classify.js";
import { plainError, plainText } from "./http-text.js";
import { networkProbeAnswer } from "./network-probe.js";

/** knative/pkg's quiet period when none (or 0) is configured. */
export const DEFAULT_DRAIN_QUIET_PERIOD_MS = 45_000;

/** The queue-proxy's quiet period. */
export const QUEUE_PROXY_DRAIN_QUIET_PERIOD_MS = 30_000;

/** Body of the 503 health checks and network probes get while draining. */
export const SHUTTING_DOWN_MESSAGE = "shutting down";

/** A request handler the drainer wraps. */
export type RequestHandler = (req: Request) => Response | Promise<Response>;

/** How a {@link Drainer} is set up. */
export interface DrainerOptions {
  clock: Clock;
  /** Quiet period in ms; undefined or <= 0 means {@link DEFAULT_DRAIN_QUIET_PERIOD_MS}. */
  quietPeriodMs?: number;
  /** User-agent prefixes that also mark health checks (the queue-proxy passes the activator's and autoscaler's). */
  healthCheckUserAgentPrefixes?: readonly string[];
  /** Answers health checks while not draining; absent = 200 with an empty body. */
  healthCheck?: RequestHandler;
}

/**
 * knative/pkg's drain semantics (knative-spec.md a.4): `drain()` starts a quiet timer that every
 * non-probe request restarts and resolves when it fires; meanwhile health checks and network probes get
 * 503 so the pod leaves the endpoints.
 */
export class Drainer {
  readonly #clock: Clock;
  readonly #quietPeriodMs: number;
  readonly #prefixes: readonly string[];
  readonly #healthCheck: RequestHandler | undefined;
  #timer: TimerHandle | undefined;
  /** Clock time the pending quiet timer fires at; undefined once it fired or when not draining. */
  #deadline: number | undefined;
  #draining = false;
  #done: Promise<void> | undefined;
  #finish: (() => void) | undefined;

  constructor(options: DrainerOptions) {
    this.#clock = options.clock;
    const q = options.quietPeriodMs;
    this.#quietPeriodMs = q !== undefined && q > 0 ? q : DEFAULT_DRAIN_QUIET_PERIOD_MS;
    this.#prefixes = options.healthCheckUserAgentPrefixes ?? [];
    this.#healthCheck = options.healthCheck;
  }

  /** The effective quiet period in ms. */
  get quietPeriodMs(): number {
    return this.#quietPeriodMs;
  }

  /** True from the first `drain()` until `reset()`, also after the quiet period ended. */
  get draining(): boolean {
    return this.#draining;
  }

  /** When the running quiet timer will fire (clock ms), for status pages and tests; else undefined. */
  get quietDeadline(): number | undefined {
    return this.#deadline;
  }

  /**
   * Starts draining (or joins the drain in progress) and resolves once no non-probe request arrived for
   * a whole quiet period, or when `reset()` interrupts the drain. Resolves at once after a finished drain.
   */
  drain(): Promise<void> {
    if (this.#done) return this.#done;
    this.#draining = true;
    this.#done = new Promise<void>((resolve) => {
      this.#finish = resolve;
    });
    this.#arm();
    return this.#done;
  }

  /**
   * Leaves drain mode (the queue-proxy does this when `/wait-for-drain` was not followed by SIGTERM, i.e.
   * the user container is restarting): stops the timer, releases `drain()` callers, probes pass again.
   */
  reset(): void {
    this.#disarm();
    this.#draining = false;
    this.#finish?.();
    this.#finish = undefined;
    this.#done = undefined;
  }

  /** Restarts the quiet timer if it is running; the entry for apps that don't route through `handle`. */
  noteRequest(): void {
    if (this.#deadline === undefined) return;
    this.#disarm();
    this.#arm();
  }

  /**
   * The drainer's own answer to `req`, or undefined when it should go on to the app: health checks
   * (503 while draining, else the health check) and `K-Network-Probe: probe` (503 while draining, else
   * the hash echo). Does not restart the timer.
   */
  intercept(req: Request): Response | Promise<Response> | undefined {
    if (isHealthCheckRequest(req, this.#prefixes)) {
      if (this.#draining) return plainError(503, SHUTTING_DOWN_MESSAGE);
      return this.#healthCheck ? this.#healthCheck(req) : plainText(200);
    }
    if (isKProbe(req)) {
      return this.#draining ? plainError(503, SHUTTING_DOWN_MESSAGE) : networkProbeAnswer(req);
    }
    return undefined;
  }

  /** Wraps an app handler: probes are answered here, every other request restarts the quiet timer. */
  async handle(req: Request, next: RequestHandler): Promise<Response> {
    const own = this.intercept(req);
    if (own) return own;
    this.noteRequest();
    return next(req);
  }

  #arm(): void {
    this.#deadline = this.#clock.now() + this.#quietPeriodMs;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#deadline = undefined;
      this.#finish?.();
      this.#finish = undefined;
    }, this.#quietPeriodMs);
  }

  #disarm(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#deadline = undefined;
  }
}
