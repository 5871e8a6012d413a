import { randomUUID } from "node:crypto";
import { statusOf } from "./status.js";

/** A stored API object (any kind): metadata plus whatever else it carries. */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion: string;
    creationTimestamp: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

/** An object as a client or test hands it in: metadata partly filled, the server completes it. */
export interface ObjectInput {
  metadata?: {
    name?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

/** One change in the store's history, what a watch replays. */
export interface StoreEvent {
  rv: number;
  type: "ADDED" | "MODIFIED" | "DELETED";
  resource: string;
  namespace: string;
  object: ApiObject;
  /** The object before a MODIFIED (for selector transitions). */
  previous?: ApiObject;
}

/** A failure the HTTP layer turns into a Status answer. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly reason?: string,
  ) {
    super(message);
  }
}

const key = (resource: string, ns: string, name: string) => `${resource}/${ns}/${name}`;
const clone = <T>(o: T): T => structuredClone(o);

/**
 * The emulator's storage, modelled on etcd behind the API server: one cluster-wide resourceVersion that
 * grows with every write, each object stamped with the version of its last write, and a bounded history
 * of changes so watches can resume from a version (older than the history: 410 Expired).
 */
export class Store {
  #rv: number;
  readonly #objects = new Map<string, ApiObject>();
  #history: StoreEvent[] = [];
  /** Watches may resume from this version or later. */
  #oldestResumable: number;
  readonly #limit: number;
  readonly #listeners = new Set<(e: StoreEvent) => void>();

  constructor(o: { startRv?: number; historyLimit?: number } = {}) {
    this.#rv = o.startRv ?? 1000;
    this.#oldestResumable = this.#rv;
    this.#limit = o.historyLimit ?? 1000;
  }

  /** The newest resourceVersion (what a list answers). */
  get resourceVersion(): number {
    return this.#rv;
  }

  /** The oldest resourceVersion a watch may still start from. */
  get oldestResumable(): number {
    return this.#oldestResumable;
  }

  /** Subscribes to every change; returns the unsubscribe. */
  on(listener: (e: StoreEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Objects of a resource in a namespace, oldest first. */
  list(resource: string, namespace: string): ApiObject[] {
    const prefix = `${resource}/${namespace}/`;
    return [...this.#objects.entries()].filter(([k]) => k.startsWith(prefix)).map(([, o]) => clone(o));
  }

  /** One object, or undefined. */
  get(resource: string, namespace: string, name: string): ApiObject | undefined {
    const o = this.#objects.get(key(resource, namespace, name));
    return o ? clone(o) : undefined;
  }

  /** Events after `rv` (exclusive); throws 410 Expired when the history no longer reaches back that far. */
  since(rv: number): StoreEvent[] {
    if (rv < this.#oldestResumable) {
      throw new ApiError(410, `too old resource version: ${rv} (${this.#oldestResumable})`, "Expired");
    }
    return this.#history.filter((e) => e.rv > rv).map(clone);
  }

  /** Forgets the history (as etcd compaction does): watches from any earlier version get 410. */
  compact(): void {
    this.#history = [];
    this.#oldestResumable = this.#rv;
  }

  /** Creates an object; 409 AlreadyExists if the name is taken. */
  create(resource: string, namespace: string, body: ObjectInput): ApiObject {
    const name = body.metadata?.name;
    if (!name) throw new ApiError(422, "metadata.name: Required value: name is required", "Invalid");
    if (this.#objects.has(key(resource, namespace, name))) {
      throw new ApiError(409, `${resource} "${name}" already exists`, "AlreadyExists");
    }
    const obj = clone(body) as ApiObject;
    obj.metadata = {
      ...obj.metadata,
      name,
      namespace,
      uid: randomUUID(),
      resourceVersion: "",
      creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    };
    if (resource === "deployments") obj.metadata.generation = 1;
    return this.#write("ADDED", resource, namespace, obj, undefined);
  }

  /**
   * Replaces an object. A resourceVersion in the body is a precondition (409 Conflict when stale); none
   * means an unconditional update, which the built-in kinds used here allow.
   */
  update(resource: string, namespace: string, name: string, body: ObjectInput): ApiObject {
    const cur = this.#objects.get(key(resource, namespace, name));
    if (!cur) throw new ApiError(404, `${resource} "${name}" not found`, "NotFound");
    const rv = body.metadata?.resourceVersion;
    if (rv && rv !== cur.metadata.resourceVersion) {
      throw new ApiError(
        409,
        `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        "Conflict",
      );
    }
    const obj = clone(body) as ApiObject;
    obj.metadata = {
      ...obj.metadata,
      name,
      namespace,
      uid: cur.metadata.uid,
      resourceVersion: "",
      creationTimestamp: cur.metadata.creationTimestamp,
    };
    if (resource === "deployments") {
      const specChanged = JSON.stringify(obj.spec) !== JSON.stringify(cur.spec);
      obj.metadata.generation = (cur.metadata.generation ?? 1) + (specChanged ? 1 : 0);
    }
    return this.#write("MODIFIED", resource, namespace, obj, cur);
  }

  /** Deletes an object; 404 when absent. */
  delete(resource: string, namespace: string, name: string): ApiObject {
    const cur = this.#objects.get(key(resource, namespace, name));
    if (!cur) throw new ApiError(404, `${resource} "${name}" not found`, "NotFound");
    return this.#write("DELETED", resource, namespace, clone(cur), cur);
  }

  #write(
    type: StoreEvent["type"],
    resource: string,
    namespace: string,
    obj: ApiObject,
    previous: ApiObject | undefined,
  ): ApiObject {
    this.#rv++;
    obj.metadata.resourceVersion = String(this.#rv);
    const k = key(resource, namespace, obj.metadata.name);
    if (type === "DELETED") this.#objects.delete(k);
    else this.#objects.set(k, obj);
    const event: StoreEvent = {
      rv: this.#rv,
      type,
      resource,
      namespace,
      object: clone(obj),
      ...(previous ? { previous: clone(previous) } : {}),
    };
    this.#history.push(event);
    if (this.#history.length > this.#limit) {
      const dropped = this.#history.splice(0, this.#history.length - this.#limit);
      this.#oldestResumable = (dropped.at(-1) as StoreEvent).rv;
    }
    for (const l of this.#listeners) l(clone(event));
    return clone(obj);
  }
}

/** An API error as the Status body the HTTP layer writes. */
export function statusFor(err: ApiError) {
  return statusOf(err.code, err.message, err.reason ? { reason: err.reason } : {});
}
