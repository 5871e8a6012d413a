import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Fault, type FaultMatch, Faults } from "./faults.js";
import { fieldSelectorError, matchesFields, matchesLabels, parseLabelSelector } from "./label-selector.js";
import { applyPatch, type Leniency, type ParsedPath, parsePath, RESOURCES, validate } from "./resources.js";
import { scaleSubresource } from "./scale-subresource.js";
import { statusOf } from "./status.js";
import { ApiError, type ApiObject, type ObjectInput, Store, type StoreEvent, statusFor } from "./store.js";
import { type OpenWatch, serveWatch } from "./watch-stream.js";

/** Options of {@link EmulatedApiServer}. */
export interface EmulatedApiServerOptions {
  /** Require `Authorization: Bearer <token>` (401 otherwise). */
  token?: string;
  /** Changes kept for watches to resume from (default 1000); older versions get 410 Expired. */
  historyLimit?: number;
  /** BOOKMARK period for watches that allow them (default 60 s, as the real server roughly does; 0 = only `bookmark()`). */
  bookmarkIntervalMs?: number;
  /** Watch length when the client sends no timeoutSeconds (default 1800 s). */
  defaultWatchTimeoutSeconds?: number;
  /**
   * Accept EndpointSlice addresses in 127.0.0.0/8 and ::1. A real API server refuses them (422), and so does
   * the emulator by default; only tests whose pods are local processes on loopback set this.
   */
  acceptLoopbackEndpoints?: boolean;
}

/** One request the emulator answered (tests assert on what clients sent). */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  body: unknown;
  status: number;
}

/**
 * An emulated Kubernetes API server: no real API server runs here. A loopback HTTP server that follows
 * the documented API semantics for the objects Thaw uses (EndpointSlices, Deployments with their `scale`
 * subresource, Leases, Services, Pods, Events): a cluster-wide resourceVersion that grows with every write; lists
 * that carry it in `metadata.resourceVersion`; watches (see `serveWatch`) with bookmarks, timeouts and 410
 * Expired; label and field selectors; create (409 AlreadyExists), update and merge-patch with the
 * resourceVersion as a precondition (409 Conflict); 422 for invalid fields Thaw could get wrong. Faults are
 * injected on purpose: the next N requests to a path answer 403/409/429 (Retry-After)/500, open watches
 * can be cut or stalled, and the history can be compacted.
 */
export class EmulatedApiServer {
  readonly store: Store;
  readonly faults = new Faults();
  readonly requests: RecordedRequest[] = [];
  readonly #o: EmulatedApiServerOptions;
  readonly #watches = new Set<OpenWatch>();
  #server: Server | undefined;
  #url = "";

  get #lenient(): Leniency {
    return { loopbackEndpoints: this.#o.acceptLoopbackEndpoints === true };
  }

  constructor(o: EmulatedApiServerOptions = {}) {
    this.#o = o;
    this.store = new Store({ ...(o.historyLimit ? { historyLimit: o.historyLimit } : {}) });
  }

  /** `http://127.0.0.1:<port>` once started. */
  get url(): string {
    return this.#url;
  }

  /** Watches open now. */
  get watches(): OpenWatch[] {
    return [...this.#watches];
  }

  /** Listens on a free loopback port. */
  async start(): Promise<string> {
    const server = createServer((req, res) => void this.#handle(req, res));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    this.#server = server;
    this.#url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.#url;
  }

  /**
   * A kubeconfig file's text for this server, for processes that read one (`kubeconfig:` in
   * thaw.config.yaml, `$KUBECONFIG`): plain http, so `insecure-skip-tls-verify` (there is no certificate).
   */
  kubeconfigYaml(): string {
    const user = this.#o.token ? `{token: ${this.#o.token}}` : "{}";
    return [
      "apiVersion: v1",
      "kind: Config",
      `clusters: [{name: emulator, cluster: {server: '${this.#url}', insecure-skip-tls-verify: true}}]`,
      `users: [{name: emulator, user: ${user}}]`,
      "contexts: [{name: emulator, context: {cluster: emulator, user: emulator}}]",
      "current-context: emulator",
      "",
    ].join("\n");
  }

  /** Ends every watch and the listener. */
  async close(): Promise<void> {
    for (const w of this.#watches) w.cut();
    const s = this.#server;
    if (!s) return;
    await new Promise<void>((r) => {
      s.close(() => r());
      s.closeAllConnections();
    });
  }

  /** The next `fault.count` requests matching `match` fail with `fault.status`. */
  failNext(match: FaultMatch, fault: Fault): void {
    this.faults.add(match, fault);
  }

  /** Cuts the open watches whose path contains `pathPart` (all when unset); returns how many. */
  cutWatches(pathPart = ""): number {
    const hit = this.watches.filter((w) => w.path.includes(pathPart));
    for (const w of hit) w.cut();
    return hit.length;
  }

  /** Stalls the open watches whose path contains `pathPart`: no event, no end (a half-open connection). */
  stallWatches(pathPart = ""): number {
    const hit = this.watches.filter((w) => w.path.includes(pathPart));
    for (const w of hit) w.stall();
    return hit.length;
  }

  /** Sends a BOOKMARK on every watch that allows them. */
  bookmark(): void {
    for (const w of this.#watches) w.bookmark();
  }

  /** Creates or replaces an object directly (what a controller or kubelet would do). */
  apply(resource: keyof typeof RESOURCES | string, namespace: string, obj: ObjectInput): ApiObject {
    const name = obj.metadata?.name as string;
    const type = RESOURCES[resource];
    if (!type) throw new Error(`the emulator serves no resource ${resource}`);
    const body = { ...obj, apiVersion: type.apiVersion, kind: type.kind };
    const cur = this.store.get(resource, namespace, name);
    validate(resource, body, cur, this.#lenient);
    if (!cur) return this.store.create(resource, namespace, body);
    return this.store.update(resource, namespace, name, {
      ...body,
      metadata: { ...body.metadata, resourceVersion: "" },
    });
  }

  /** Deletes an object directly. */
  remove(resource: string, namespace: string, name: string): void {
    this.store.delete(resource, namespace, name);
  }

  /** One object as stored now. */
  get(resource: string, namespace: string, name: string): ApiObject | undefined {
    return this.store.get(resource, namespace, name);
  }

  /** Calls `listener` on every stored change; returns the unsubscribe. */
  onChange(listener: (e: StoreEvent) => void): () => void {
    return this.store.on(listener);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://emulator");
    const method = req.method ?? "GET";
    const raw = await readBody(req);
    const rec: RecordedRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      contentType: req.headers["content-type"],
      body: undefined,
      status: 200,
    };
    this.requests.push(rec);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      rec.status = status;
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    try {
      if (this.#o.token && req.headers.authorization !== `Bearer ${this.#o.token}`) {
        throw new ApiError(401, "Unauthorized");
      }
      if (raw !== "") {
        try {
          rec.body = JSON.parse(raw);
        } catch {
          throw new ApiError(400, "the request body is not valid JSON");
        }
      }
      const watch = url.searchParams.get("watch") === "true" || url.searchParams.get("watch") === "1";
      const fault = this.faults.take(method, url.pathname, watch);
      if (fault) {
        const retry = fault.retryAfterSeconds;
        const status = statusOf(fault.status, fault.message ?? `injected fault ${fault.status}`, {
          ...(retry !== undefined ? { details: { retryAfterSeconds: retry } } : {}),
        });
        answer(fault.status, status, retry !== undefined ? { "retry-after": String(retry) } : {});
        return;
      }
      const p = parsePath(url.pathname);
      if (!p) throw new ApiError(404, `the server could not find the requested resource (${url.pathname})`);
      const badField =
        method === "GET" ? fieldSelectorError(p.resource, url.searchParams.get("fieldSelector")) : undefined;
      if (badField) throw new ApiError(400, badField, "BadRequest");
      if (watch && method === "GET" && !p.name) {
        rec.status = 200;
        const w = serveWatch({
          store: this.store,
          resource: p.resource,
          type: p.type,
          namespace: p.namespace,
          query: url.searchParams,
          path: url.pathname,
          res,
          defaultTimeoutSeconds: this.#o.defaultWatchTimeoutSeconds ?? 1800,
          bookmarkIntervalMs: this.#o.bookmarkIntervalMs ?? 60_000,
          onClose: (h) => this.#watches.delete(h),
        });
        this.#watches.add(w);
        return;
      }
      answer(...this.#route(method, p, url.searchParams, rec.body, req.headers["content-type"]));
    } catch (err) {
      if (err instanceof ApiError) answer(err.code, statusFor(err));
      else answer(400, statusOf(400, String((err as Error).message ?? err)));
    }
  }

  #route(
    method: string,
    p: ParsedPath,
    query: URLSearchParams,
    body: unknown,
    contentType: string | undefined,
  ): [number, unknown] {
    const { resource, namespace, name, type } = p;
    const typed = (o: ApiObject) => ({ ...o, apiVersion: type.apiVersion, kind: type.kind });
    if (p.subresource) {
      if (resource !== "deployments" || p.subresource !== "scale" || !name) {
        throw new ApiError(404, `the server could not find the requested resource (${p.subresource})`);
      }
      return scaleSubresource(this.store, method, namespace, name, body, contentType);
    }
    if (!name) {
      if (method === "GET") {
        const labels = parseLabelSelector(query.get("labelSelector") ?? "");
        const fields = query.get("fieldSelector");
        const items = this.store
          .list(resource, namespace)
          .filter((o) => matchesLabels(labels, o.metadata.labels) && matchesFields(fields, o, resource));
        return [
          200,
          {
            apiVersion: type.apiVersion,
            kind: `${type.kind}List`,
            metadata: { resourceVersion: String(this.store.resourceVersion) },
            items,
          },
        ];
      }
      if (method === "POST") {
        const obj = body as ObjectInput;
        validate(resource, obj, undefined, this.#lenient);
        return [201, typed(this.store.create(resource, namespace, obj))];
      }
      throw new ApiError(405, `method ${method} is not allowed on a collection`, "MethodNotAllowed");
    }
    const cur = this.store.get(resource, namespace, name);
    if (method === "GET") {
      if (!cur) throw new ApiError(404, `${resource} "${name}" not found`, "NotFound");
      return [200, typed(cur)];
    }
    if (method === "PUT") {
      const obj = body as ObjectInput;
      if (obj?.metadata?.name !== undefined && obj.metadata.name !== name) {
        throw new ApiError(
          400,
          `the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`,
        );
      }
      validate(resource, obj, cur, this.#lenient);
      return [200, typed(this.store.update(resource, namespace, name, obj))];
    }
    if (method === "PATCH") {
      if (!cur) throw new ApiError(404, `${resource} "${name}" not found`, "NotFound");
      const next = applyPatch(cur, body, contentType);
      validate(resource, next, cur, this.#lenient);
      return [200, typed(this.store.update(resource, namespace, name, next))];
    }
    if (method === "DELETE") return [200, typed(this.store.delete(resource, namespace, name))];
    throw new ApiError(405, `method ${method} is not allowed`, "MethodNotAllowed");
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      s += c;
    });
    req.on("end", () => resolve(s));
    req.on("error", reject);
  });
}
