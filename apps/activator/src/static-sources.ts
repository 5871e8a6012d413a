import type {
  EndpointDetail,
  EndpointSource,
  RevisionConfig,
  RevisionDirectory,
  RevisionKey,
} from "./ports.js";

const idOf = (k: RevisionKey) => `${k.namespace}/${k.name}`;

/** Endpoint discovery from a fixed list that callers (tests, the CLI) may change at run time. */
export class StaticEndpointSource implements EndpointSource {
  readonly #lists = new Map<string, string[]>();
  readonly #details = new Map<string, EndpointDetail>();
  readonly #subs = new Map<string, Set<(eps: string[], detail?: EndpointDetail) => void>>();

  /** Each revision's pods and, optionally, its private Service's `clusterIP:port`. */
  constructor(initial: Iterable<[RevisionKey, string[], EndpointDetail?]> = []) {
    for (const [k, eps, detail] of initial) {
      this.#lists.set(idOf(k), [...eps]);
      if (detail) this.#details.set(idOf(k), { ...detail });
    }
  }

  subscribe(key: RevisionKey, onChange: (endpoints: string[], detail?: EndpointDetail) => void): () => void {
    const id = idOf(key);
    let set = this.#subs.get(id);
    if (!set) {
      set = new Set();
      this.#subs.set(id, set);
    }
    set.add(onChange);
    onChange([...(this.#lists.get(id) ?? [])], this.#details.get(id));
    return () => set.delete(onChange);
  }

  /** Replaces a revision's pods (and its detail, when given) and tells its subscribers. */
  set(key: RevisionKey, endpoints: string[], detail?: EndpointDetail): void {
    const id = idOf(key);
    this.#lists.set(id, [...endpoints]);
    if (detail) this.#details.set(id, { ...detail });
    for (const s of this.#subs.get(id) ?? []) s([...endpoints], this.#details.get(id));
  }
}

/** A revision directory over a fixed map. */
export class StaticDirectory implements RevisionDirectory {
  readonly #revs = new Map<string, { key: RevisionKey; config: RevisionConfig }>();

  constructor(entries: Iterable<{ key: RevisionKey; config: RevisionConfig }> = []) {
    for (const e of entries) this.set(e.key, e.config);
  }

  /** Adds or replaces a revision. */
  set(key: RevisionKey, config: RevisionConfig): void {
    this.#revs.set(idOf(key), { key: { namespace: key.namespace, name: key.name }, config });
  }

  lookup(key: RevisionKey): RevisionConfig | undefined {
    return this.#revs.get(idOf(key))?.config;
  }

  list(): RevisionKey[] {
    return [...this.#revs.values()].map((e) => e.key);
  }
}
