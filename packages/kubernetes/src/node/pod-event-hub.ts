import { CoreV1Api, type CoreV1Event, type KubeConfig } from "@kubernetes/client-node";
import type { Clock } from "@thaw/clock";
import { type PodEvent, PodEventLog, podEventOf } from "../pod-events.js";
import { Informer } from "./informer.js";
import type { Logger } from "./logger.js";

/** Options of {@link PodEventHub}. */
export interface PodEventHubOptions {
  kubeConfig: KubeConfig;
  clock: Clock;
  random: () => number;
  logger?: Logger;
  /** First relist / rewatch delay after a failure (default 500 ms). */
  backoffInitialMs?: number;
}

/** One follower of a namespace's pod Warnings: the pods it asks about and its callback. */
interface Follower {
  follows: (pod: string) => boolean;
  onChange: (of: (pod: string) => PodEvent[]) => void;
}

interface Shared {
  informer: Informer<CoreV1Event>;
  followers: Set<Follower>;
}

/**
 * Follows the Warnings about pods in each namespace asked for (core v1 `events`, list then watch, with the
 * field selector `involvedObject.kind=Pod,type=Warning`; RBAC `list` and `watch` on `events`): one
 * informer per namespace, holding only the Warnings of pods some follower follows, each follower told of
 * its own pods' latest Warning per reason. A Warning that came before its pod was followed is seen again at
 * its next repeat (the kubelet updates the same Event with a new count) or at the next list.
 */
export class PodEventHub {
  readonly #o: PodEventHubOptions;
  readonly #api: CoreV1Api;
  readonly #shared = new Map<string, Shared>();

  constructor(o: PodEventHubOptions) {
    this.#o = o;
    this.#api = o.kubeConfig.makeApiClient(CoreV1Api);
  }

  /**
   * Calls `onChange` after every change of the Warnings about pods `follows` names in `namespace`, with a
   * reader of each pod's latest Warning per reason. Returns the unsubscribe.
   */
  subscribe(
    namespace: string,
    follows: (pod: string) => boolean,
    onChange: (of: (pod: string) => PodEvent[]) => void,
  ): () => void {
    let s = this.#shared.get(namespace);
    if (!s) {
      const followers = new Set<Follower>();
      const followed = (pod: string) => [...followers].some((f) => f.follows(pod));
      const fieldSelector = "involvedObject.kind=Pod,type=Warning";
      const informer = new Informer<CoreV1Event>({
        kubeConfig: this.#o.kubeConfig,
        clock: this.#o.clock,
        random: this.#o.random,
        ...(this.#o.logger ? { logger: this.#o.logger } : {}),
        ...(this.#o.backoffInitialMs ? { backoff: { initialMs: this.#o.backoffInitialMs } } : {}),
        path: `/api/v1/namespaces/${namespace}/events`,
        selectors: { fieldSelector },
        keep: (e) => {
          const got = podEventOf(e);
          return got !== undefined && followed(got.pod);
        },
        list: async () => {
          const l = await this.#api.listNamespacedEvent({ namespace, fieldSelector });
          return { items: l.items, resourceVersion: l.metadata?.resourceVersion ?? "" };
        },
        onChange: (events) => {
          for (const f of followers) {
            const log = new PodEventLog();
            log.reset(events.values(), f.follows);
            f.onChange((pod) => log.of(pod));
          }
        },
      });
      s = { informer, followers };
      this.#shared.set(namespace, s);
      informer.start();
    }
    const shared = s;
    const follower: Follower = { follows, onChange };
    shared.followers.add(follower);
    return () => {
      shared.followers.delete(follower);
      if (shared.followers.size === 0) {
        shared.informer.stop();
        this.#shared.delete(namespace);
      }
    };
  }

  /** The informer of a namespace (tests). */
  informerOf(namespace: string): Informer<CoreV1Event> | undefined {
    return this.#shared.get(namespace)?.informer;
  }

  /** Stops every informer. */
  close(): void {
    for (const s of this.#shared.values()) s.informer.stop();
    this.#shared.clear();
  }
}
