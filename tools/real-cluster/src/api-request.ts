import { request } from "node:https";

/** Where and as whom {@link apiRequest} talks: a control plane's server, CA and a bearer token. */
export interface ApiTarget {
  server: string;
  ca: Buffer | string;
  token: string;
}

/** One JSON request to the API server; resolves with the status and the parsed body (bounded to 1 MiB). */
export function apiRequest(
  t: ApiTarget,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<{ status: number; body: { message?: string; [k: string]: unknown } }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${t.server}${path}`,
      {
        method,
        ca: t.ca,
        timeout: 30_000,
        headers: {
          authorization: `Bearer ${t.token}`,
          accept: "application/json",
          ...(payload ? { "content-type": contentType, "content-length": Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          if (text.length > 1 << 20) res.destroy(new Error(`${method} ${path}: answer over 1 MiB`));
          text += c;
        });
        res.on("end", () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} });
          } catch {
            resolve({ status: res.statusCode ?? 0, body: { message: text.slice(0, 500) } });
          }
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
    req.on("error", reject);
    req.end(payload);
  });
}
