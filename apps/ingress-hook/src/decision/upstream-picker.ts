import { type LbPolicy, PodTracker, policyFor, type RandomSource } from "@thaw/activation";

/** Picks the pod for one allowed request of one revision: an index into its endpoints, -1 for none. */
export interface PodChooser {
  choose(): number;
}

/** Makes each revision's pod chooser; the hook keeps it in the revision's slot until the endpoints change. */
export interface UpstreamPicker {
  /** The chooser for `endpoints`; `previous` is the revision's last one (state like round robin's position carries over). */
  chooser(key: string, endpoints: readonly string[], previous: PodChooser | undefined): PodChooser;
}

/** Options of {@link activationPolicyPicker}. */
export interface PolicyPickerOptions {
  random: RandomSource;
  /** The revision's containerConcurrency (picks Knative's policy); default 0. */
  containerConcurrencyFor?: (key: string) => number;
}

/** A tracker that knows its place in the endpoints, so a pick needs no search. */
class IndexedTracker extends PodTracker {
  readonly index: number;
  constructor(dest: string, index: number) {
    super(dest, 0);
    this.index = index;
  }
}

class PolicyChooser implements PodChooser {
  readonly policy: LbPolicy;
  readonly #trackers: IndexedTracker[];
  constructor(endpoints: readonly string[], policy: LbPolicy) {
    this.policy = policy;
    this.#trackers = endpoints.map((e, i) => new IndexedTracker(e, i));
  }
  choose(): number {
    // The policy returns one of the trackers it was given, all IndexedTracker.
    const t = this.policy(this.#trackers) as IndexedTracker | undefined;
    if (!t) return -1;
    t.release();
    return t.index;
  }
}

/**
 * The activator's load-balancing policy (@thaw/activation's `policyFor` by containerConcurrency), one
 * instance per revision. The hook never sees a request finish, so it releases each reservation at once:
 * in-flight counts stay at zero, random-choice-of-two becomes a uniform random pick, round robin stays
 * round robin, and first-available always names the first pod (the proxy's own cache pins a revision to
 * one pod for a second anyway).
 */
export function activationPolicyPicker(opts: PolicyPickerOptions): UpstreamPicker {
  return {
    chooser(key, endpoints, previous) {
      const policy =
        previous instanceof PolicyChooser
          ? previous.policy
          : policyFor(opts.containerConcurrencyFor?.(key) ?? 0, opts.random);
      return new PolicyChooser(endpoints, policy);
    },
  };
}
