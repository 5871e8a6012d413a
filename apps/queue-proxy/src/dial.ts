import net from "node:net";

/** Knative's dial back-off (knative-spec.md c.3): only timed-out dials are retried. */
export interface DialPolicy {
  /** First attempt's timeout. */
  initialTimeoutMs: number;
  /** Timeout multiplier per step. */
  factor: number;
  /** Attempts in all. */
  steps: number;
  /** Relative jitter added to each timeout (0.1 = up to +10 %). */
  jitter: number;
  /** Pause between attempts: uniformly in [min, max]. */
  sleepMinMs: number;
  sleepMaxMs: number;
}

/** The numbers Knative's transport uses. */
export const KNATIVE_DIAL_POLICY: DialPolicy = {
  initialTimeoutMs: 50,
  factor: 1.4,
  steps: 15,
  jitter: 0.1,
  sleepMinMs: 30,
  sleepMaxMs: 60,
};

/** Raised when every attempt of a dial timed out. */
export class DialTimeoutError extends Error {
  readonly code = "ERR_DIAL_TIMEOUT";
  constructor(host: string, port: number, attempts: number) {
    super(`dial tcp ${host}:${port}: i/o timeout after ${attempts} attempts`);
    this.name = "DialTimeoutError";
  }
}

/** The timeout of attempt `step` (0-based) before jitter. */
export function dialTimeoutFor(policy: DialPolicy, step: number): number {
  return policy.initialTimeoutMs * policy.factor ** step;
}

/**
 * Connects to host:port, retrying only attempts that time out (a refused connection fails at once, as
 * in Go's dialer), with a growing timeout and a short random pause between attempts.
 */
export function dialWithRetry(
  host: string,
  port: number,
  policy: DialPolicy,
  callback: (err: Error | null, socket: net.Socket | null) => void,
  random: () => number = Math.random,
  connect: (host: string, port: number) => net.Socket = (h, p) =>
    net.connect({ host: h, port: p, noDelay: true }),
): void {
  let step = 0;
  const attempt = () => {
    const timeoutMs = dialTimeoutFor(policy, step) * (1 + policy.jitter * random());
    const socket = connect(host, port);
    let settled = false;
    const giveUp = () => {
      if (settled) return;
      settled = true;
      socket.destroy();
      step++;
      if (step >= policy.steps) {
        callback(new DialTimeoutError(host, port, step), null);
        return;
      }
      const pause = policy.sleepMinMs + (policy.sleepMaxMs - policy.sleepMinMs) * random();
      setTimeout(attempt, pause);
    };
    // Node runs due timers before it polls for I/O: after a stall of the event loop (a loaded machine) the
    // timer would fire first and drop a dial the kernel had already completed. setImmediate runs after that
    // poll, so a connect that is already done wins; only a dial still pending after it times out.
    const timer = setTimeout(() => setImmediate(giveUp), timeoutMs);
    const onError = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      callback(err, null);
    };
    socket.once("error", onError);
    socket.once("connect", () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.removeListener("error", onError);
      socket.setKeepAlive(true, 30_000);
      callback(null, socket);
    });
  };
  attempt();
}
