import type { KubeConfig } from "@kubernetes/client-node";
import type { Clock } from "@thaw/clock";
import type { KubeObject } from "../types.js";
import { Informer, type ListResult } from "./informer.js";
import type { Logger } from "./logger.js";

/** What every reader of one named object takes (a Deployment, a Service). */
export interface NamedObjectOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  name: string;
  clock: Clock;
  random: () => number;
  logger?: Logger;
  timeoutSeconds?: number;
  backoffInitialMs?: number;
}

/** The resource a reader follows: its collection path and its list call with a field selector. */
export interface NamedResource<T> {
  path: string;
  list(fieldSelector: string): Promise<ListResult<T>>;
}

/**
 * An informer on one object by name (list + watch with `fieldSelector=metadata.name=<name>`), calling
 * `onObject` with the object, or undefined while it does not exist.
 */
export function namedObjectInformer<T extends KubeObject>(
  o: NamedObjectOptions,
  resource: NamedResource<T>,
  onObject: (object: T | undefined) => void,
): Informer<T> {
  const fieldSelector = `metadata.name=${o.name}`;
  return new Informer<T>({
    kubeConfig: o.kubeConfig,
    clock: o.clock,
    random: o.random,
    ...(o.logger ? { logger: o.logger } : {}),
    ...(o.timeoutSeconds ? { timeoutSeconds: o.timeoutSeconds } : {}),
    ...(o.backoffInitialMs ? { backoff: { initialMs: o.backoffInitialMs } } : {}),
    path: resource.path,
    selectors: { fieldSelector },
    list: () => resource.list(fieldSelector),
    onChange: (objects) => onObject([...objects.values()][0]),
  });
}
