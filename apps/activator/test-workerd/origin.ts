import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A fake pod plus a fake scaler webhook for the workerd suite (runs in Node, started by global setup). */
export async function startOrigin(): Promise<{ port: number; server: Server }> {
  let started = false;
  let pokes = 0;
  let requests = 0;
  const server = createServer((req, res) => {
    const url = req.url ?? "/";
    if (req.headers["k-network-probe"] === "queue") {
      res.writeHead(started ? 200 : 503).end(started ? "queue" : "");
      return;
    }
    if (url.startsWith("/__control/")) {
      const what = url.slice("/__control/".length);
      if (what === "poke") {
        pokes++;
        setTimeout(() => {
          started = true;
        }, 300);
      } else if (what === "reset") {
        started = false;
        pokes = 0;
        requests = 0;
      } else if (what === "start") started = true;
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ started, pokes, requests }));
      return;
    }
    requests++;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(
        `ok ${req.method} ${url} ${req.headers["k-proxy-request"] ?? ""} ${Buffer.concat(chunks).toString()}`,
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as AddressInfo).port, server };
}
