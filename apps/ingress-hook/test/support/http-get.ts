import http from "node:http";

/** A plain HTTP/1.1 answer. */
export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** GET over a fresh loopback connection, with any Host and any headers (fetch forbids setting Host). */
export function httpGet(
  port: number,
  host: string,
  path: string,
  headers: Record<string, string> = {},
  timeoutMs = 20_000,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path, method: "GET", headers: { host, ...headers }, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          body += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.setTimeout(timeoutMs, () =>
      req.destroy(new Error(`GET ${host}${path} timed out after ${timeoutMs} ms`)),
    );
    req.on("error", reject);
    req.end();
  });
}

/** Waits until something accepts HTTP on the port (bounded). */
export async function waitForHttp(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 1000 && Date.now() < deadline; i++) {
    try {
      await httpGet(port, "probe.invalid", "/_thaw_ready_check", {}, 1000);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`nothing answered on 127.0.0.1:${port} within ${timeoutMs} ms`);
}
