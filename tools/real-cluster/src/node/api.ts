import { readFileSync } from "node:fs";
import { request } from "node:https";
import { apiRequest } from "../api-request.js";
import type { ControlPlane } from "../control-plane.js";

/** The admin's target for {@link apiRequest}. */
const target = (cp: Pick<ControlPlane, "server" | "token" | "caPath">) => ({
  server: cp.server,
  ca: readFileSync(cp.caPath),
  token: cp.token,
});

/**
 * One request as the admin: the JSON answer, or null for a GET that found nothing (404). Other
 * statuses throw with the server's message: on a test cluster they are a bug to see.
 */
export async function api<T = unknown>(
  cp: Pick<ControlPlane, "server" | "token" | "caPath">,
  method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH",
  path: string,
  body?: unknown,
): Promise<T | null> {
  const r = await apiRequest(target(cp), method, path, body);
  if (r.status === 404 && method === "GET") return null;
  if (r.status < 200 || r.status > 299)
    throw new Error(`${method} ${path}: ${r.status} ${r.body.message ?? ""}`);
  return r.body as T;
}

/** One watch event: the type and the object. */
export interface WatchEvent<T> {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: T;
}

/** A watch in progress: `opened` once its connection is up, `stop` ends it. */
export interface Watching {
  opened: Promise<void>;
  stop(): void;
}

/**
 * Watches `path` (a collection URL with its query, `watch=1` added here) and calls `onEvent` for each
 * event as it arrives. Lines over 1 MiB end it with an error.
 */
export function watch<T>(
  cp: Pick<ControlPlane, "server" | "token" | "caPath">,
  path: string,
  onEvent: (e: WatchEvent<T>) => void,
  onError: (e: Error) => void = () => {},
): Watching {
  const url = `${cp.server}${path}${path.includes("?") ? "&" : "?"}watch=1`;
  const req = request(
    url,
    {
      ca: readFileSync(cp.caPath),
      headers: { authorization: `Bearer ${cp.token}`, accept: "application/json" },
    },
    (res) => {
      if (res.statusCode !== 200) return onError(new Error(`watch ${path}: ${res.statusCode}`));
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        buf += c;
        for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) onEvent(JSON.parse(line) as WatchEvent<T>);
        }
        if (buf.length > 1024 * 1024) req.destroy(new Error(`watch ${path}: an event over 1 MiB`));
      });
    },
  );
  req.on("error", (e) => {
    if (!ended) onError(e);
  });
  // The API server sends the answer's head only with the first event: "open" is the connection up (its
  // TLS handshake done), or at once on a kept connection.
  const opened = new Promise<void>((resolve) =>
    req.once("socket", (s) => {
      if (s.connecting) s.once("secureConnect", () => resolve());
      else resolve();
    }),
  );
  req.end();
  let ended = false;
  return {
    opened,
    stop: () => {
      ended = true;
      req.destroy();
    },
  };
}
