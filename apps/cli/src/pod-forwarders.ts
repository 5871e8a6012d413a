import type { Forwarder } from "@thaw/activator";
import { createH1Forwarder } from "@thaw/activator/node";

/** A forwarder with one keep-alive pool per pod, so the pool of a pod that goes away can be closed alone. */
export interface PodForwarders {
  forward: Forwarder;
  /** Closes the pools of every pod not in `live` (idle sockets now, busy ones after their response). */
  retain(live: Iterable<string>): void;
  close(): Promise<void>;
}

/**
 * The activator's HTTP/1 forwarder, which keeps one pool per pod. A draining queue-proxy exits once its
 * connections are gone; closing the departed pod's pool releases our idle keep-alive sockets at once,
 * instead of when the queue-proxy closes them.
 */
export function podForwarders(): PodForwarders {
  const { forward, retain, close } = createH1Forwarder();
  return { forward, retain, close };
}
