import { readFileSync } from "node:fs";
import { request } from "node:https";
import type { ControlPlane } from "../control-plane.js";

/** Bound on one answer read into memory: a node or a pod list of a test cluster fits with room to spare. */
const MAX_BODY = 4 * 1024 * 1024;

/**
 * One request to the API server as the admin: the JSON answer (or null on 404). Other statuses throw
 * with the server's message, since a test cluster's API answering 4xx/5xx is a bug to see.
 */
export function api<T = unknown>(
  cp: Pick<ControlPlane, "server" | "token" | "caPath">,
  method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH",
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<T | null> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${cp.server}${path}`,
      {
        method,
        ca: readFileSync(cp.caPath),
        headers: {
          authorization: `Bearer ${cp.token}`,
          accept: "application/json",
          ...(payload ? { "content-type": contentType } : {}),
        },
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY)
            return req.destroy(new Error(`${method} ${path}: answer over ${MAX_BODY} bytes`));
          chunks.push(c);
        });
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const status = res.statusCode ?? 0;
          if (status === 404 && method === "GET") return resolve(null);
          if (status < 200 || status > 299)
            return reject(new Error(`${method} ${path}: ${status} ${text.slice(0, 500)}`));
          resolve(text ? (JSON.parse(text) as T) : null);
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer in 10 s`)));
    req.on("error", reject);
    req.end(payload);
  });
}

/** One watch event: the type and the object. */
export interface WatchEvent<T> {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: T;
}

/**
 * Watches `path` (a collection URL with its query, `watch=1` added here) and calls `onEvent` for each
 * event as it arrives; returns a function that ends the watch. Lines over 1 MiB end it with an error.
 */
export function watch<T>(
  cp: Pick<ControlPlane, "server" | "token" | "caPath">,
  path: string,
  onEvent: (e: WatchEvent<T>) => void,
  onError: (e: Error) => void = () => {},
): () => void {
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
  req.end();
  let ended = false;
  return () => {
    ended = true;
    req.destroy();
  };
}
