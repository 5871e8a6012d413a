import type { ServerResponse } from "node:http";
import { matchesFields, matchesLabels, parseLabelSelector } from "./label-selector.js";
import type { ResourceType } from "./resources.js";
import { statusOf } from "./status.js";
import type { ApiError, ApiObject, Store, StoreEvent } from "./store.js";

/** One open watch, as the emulator's fault hooks see it. */
export interface OpenWatch {
  path: string;
  query: URLSearchParams;
  /** Ends the stream abruptly (the TCP connection is destroyed mid-stream). */
  cut(): void;
  /** Stops writing anything and never ends: a half-open connection as the client experiences it. */
  stall(): void;
  /** Sends a BOOKMARK now if the client asked for them. */
  bookmark(): void;
}

/** Options of one watch. */
export interface WatchStreamOptions {
  store: Store;
  resource: string;
  type: ResourceType;
  namespace: string;
  query: URLSearchParams;
  path: string;
  res: ServerResponse;
  /** Server-side limit when the client sends no timeoutSeconds (the real default is 30-60 min). */
  defaultTimeoutSeconds: number;
  bookmarkIntervalMs: number;
  onClose: (w: OpenWatch) => void;
}

/**
 * Serves one watch as the API server does: newline-delimited JSON events on a 200 response. No
 * resourceVersion (or "0"): the current objects as ADDED first; a version: every change after it, or,
 * when the history no longer reaches that far, one ERROR event carrying a 410 Expired Status and the end
 * of the stream. Label and field selectors filter, and an object that stops (starts) matching arrives
 * as DELETED (ADDED). BOOKMARKs (only the resourceVersion set) when asked; the stream ends after
 * `timeoutSeconds`.
 */
export function serveWatch(o: WatchStreamOptions): OpenWatch {
  const { res, query } = o;
  const labels = parseLabelSelector(query.get("labelSelector") ?? "");
  const fields = query.get("fieldSelector");
  const matches = (obj: ApiObject | undefined) =>
    obj !== undefined && matchesLabels(labels, obj.metadata.labels) && matchesFields(fields, obj, o.resource);
  const bookmarks = query.get("allowWatchBookmarks") === "true";
  const timeoutSeconds = Number(query.get("timeoutSeconds") ?? o.defaultTimeoutSeconds);
  let stalled = false;
  let ended = false;
  let unsubscribe = () => {};
  const timers: NodeJS.Timeout[] = [];
  const write = (type: string, object: unknown) => {
    if (!stalled && !ended) res.write(`${JSON.stringify({ type, object })}\n`);
  };
  const typed = (obj: ApiObject) => ({ ...obj, apiVersion: o.type.apiVersion, kind: o.type.kind });
  const send = (e: StoreEvent) => {
    if (e.resource !== o.resource || e.namespace !== o.namespace) return;
    const now = matches(e.object);
    const before = matches(e.previous);
    if (e.type === "DELETED") {
      if (before || now) write("DELETED", typed(e.object));
    } else if (e.type === "ADDED") {
      if (now) write("ADDED", typed(e.object));
    } else if (now && before) write("MODIFIED", typed(e.object));
    else if (now) write("ADDED", typed(e.object));
    else if (before) write("DELETED", typed(e.object));
  };
  const end = () => {
    if (ended) return;
    ended = true;
    for (const t of timers) clearTimeout(t);
    unsubscribe();
    if (!res.destroyed) res.end();
    o.onClose(handle);
  };
  const handle: OpenWatch = {
    path: o.path,
    query,
    cut() {
      ended = true;
      for (const t of timers) clearTimeout(t);
      unsubscribe();
      res.destroy();
      o.onClose(handle);
    },
    stall() {
      stalled = true;
      for (const t of timers) clearTimeout(t);
    },
    bookmark() {
      if (bookmarks) {
        write("BOOKMARK", {
          apiVersion: o.type.apiVersion,
          kind: o.type.kind,
          metadata: { resourceVersion: String(o.store.resourceVersion) },
        });
      }
    },
  };
  res.writeHead(200, { "content-type": "application/json", "cache-control": "no-cache" });
  res.flushHeaders();
  const rvText = query.get("resourceVersion");
  let backlog: StoreEvent[] = [];
  if (!rvText || rvText === "0") {
    for (const obj of o.store.list(o.resource, o.namespace)) if (matches(obj)) write("ADDED", typed(obj));
  } else {
    try {
      backlog = o.store.since(Number(rvText));
    } catch (err) {
      const e = err as ApiError;
      write("ERROR", statusOf(e.code, e.message, e.reason ? { reason: e.reason } : {}));
      ended = true;
      res.end();
      queueMicrotask(() => o.onClose(handle));
      return handle;
    }
  }
  for (const e of backlog) send(e);
  const off = o.store.on(send);
  unsubscribe = () => {
    off();
  };
  res.on("close", end);
  timers.push(setTimeout(end, timeoutSeconds * 1000));
  if (bookmarks && o.bookmarkIntervalMs > 0) {
    const tick = () => {
      handle.bookmark();
      if (!ended && !stalled) timers.push(setTimeout(tick, o.bookmarkIntervalMs));
    };
    timers.push(setTimeout(tick, o.bookmarkIntervalMs));
  }
  return handle;
}
