import { type LbPolicy, PodTracker, policyFor, type RandomSource } from "@thaw/activation";

/** Chooses the pod an allowed request goes to. */
export interface UpstreamPicker {
  pick(key: string, endpoints: readonly string[]): string | undefined;
}

/** Options of {@link activationPolicyPicker}. */
export interface PolicyPickerOptions {
  random: RandomSource;
  /** The revision's containerConcurrency (picks Knative's policy); default 0. */
  containerConcurrencyFor?: (key: string) => number;
}

interface RevisionPods {
  endpoints: readonly string[];
  trackers: PodTracker[];
  policy: LbPolicy;
}

/**
 * The activator's load-balancing policy (@thaw/activation's `policyFor` by containerConcurrency), one
 * instance per revision. The hook never sees a request finish, so it releases each reservation at once:
 * in-flight counts stay at zero, random-choice-of-two becomes a uniform random pick, round robin stays
 * round robin, and first-available always names the first pod (the proxy's own cache pins a revision to
 * one pod for a second anyway).
 */
export function activationPolicyPicker(opts: PolicyPickerOptions): UpstreamPicker {
  const revisions = new Map<string, RevisionPods>();
  return {
    pick(key, endpoints) {
      let st = revisions.get(key);
      // Warm entries keep their array until the endpoints change, so identity is the change test.
      if (!st || st.endpoints !== endpoints) {
        const cc = opts.containerConcurrencyFor?.(key) ?? 0;
        st = {
          endpoints,
          trackers: endpoints.map((e) => new PodTracker(e, 0)),
          policy: st?.policy ?? policyFor(cc, opts.random),
        };
        revisions.set(key, st);
      }
      const t = st.policy(st.trackers);
      if (!t) return undefined;
      t.release();
      return t.dest;
    },
  };
}
