import type { Clock } from "@thaw/clock";
import { DeadlineExceededError } from "./errors.js";

/** An AbortSignal with a deadline on an injected clock, and the means to tidy it up. */
export interface DeadlineSignal {
  /** Fires with DeadlineExceededError at the deadline, or with the parent's reason if it fires first. */
  signal: AbortSignal;
  /** Cancels the timer and detaches from the parent; call once the guarded work is over. */
  dispose(): void;
}

/**
 * Builds a waiter's signal from its client's signal and its own budget (see `requestDeadlineMs`), on
 * `clock` so tests can move time, unlike `AbortSignal.timeout`.
 */
export function deadlineSignal(clock: Clock, timeoutMs: number, parent?: AbortSignal): DeadlineSignal {
  const ac = new AbortController();
  const timer = clock.setTimeout(() => ac.abort(new DeadlineExceededError()), Math.max(0, timeoutMs));
  const onParent = () => ac.abort(parent?.reason);
  if (parent?.aborted) onParent();
  else parent?.addEventListener("abort", onParent, { once: true });
  return {
    signal: ac.signal,
    dispose() {
      clock.clearTimeout(timer);
      parent?.removeEventListener("abort", onParent);
    },
  };
}
