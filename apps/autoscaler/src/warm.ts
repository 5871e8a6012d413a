import { type ActiveWindow, activeWindow, type ScaleSettings, withWarmFloor } from "@thaw/autoscaler";
import type { RevisionPolicy } from "./policy.js";

/** What keeps a revision warm now, as the status API and the dashboard show it. */
export interface WarmStatus {
  /** The schedule window in force, if any. */
  window: ActiveWindow | null;
  /** Until when a wake hint holds the revision at ≥ 1 pod (epoch ms); null = no hint in force. */
  hintUntilMs: number | null;
  /** The min-scale in force: max(configured, window's, 1 while a hint holds). */
  minScale: number;
}

/**
 * The warm state of one revision at `now` and the scale settings it implies. A wake hint counts as a
 * floor of 1 pod, never as load: it does not enter the metric windows the decider reads.
 */
export function warmAt(policy: RevisionPolicy, hintUntilMs: number | undefined, now: number): Warm {
  const window = policy.schedules.length > 0 ? (activeWindow(policy.schedules, now) ?? null) : null;
  const hint = hintUntilMs !== undefined && now < hintUntilMs ? hintUntilMs : null;
  if (window === null && hint === null) {
    // Nothing in force: the policy's own answer, built once (the service asks on every tick per revision).
    let cold = unwarmed.get(policy);
    if (!cold) {
      cold = warmOf(policy, null, null);
      unwarmed.set(policy, cold);
    }
    return cold;
  }
  return warmOf(policy, window, hint);
}

/** The warm state and the settings it implies; shared between calls, so read-only. */
export type Warm = Readonly<{ status: Readonly<WarmStatus>; settings: ScaleSettings }>;

const unwarmed = new WeakMap<RevisionPolicy, Warm>();

function warmOf(policy: RevisionPolicy, window: ActiveWindow | null, hint: number | null): Warm {
  const settings = withWarmFloor(policy.settings, Math.max(window?.minScale ?? 0, hint === null ? 0 : 1));
  return { status: { window, hintUntilMs: hint, minScale: settings.minScale }, settings };
}
