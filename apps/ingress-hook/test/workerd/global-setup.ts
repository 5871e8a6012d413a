import http from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

/**
 * Runs in Node before the workerd pool starts: a pod for the real activator worker to probe and forward
 * to, and the gateway's origin. It answers the queue-proxy readiness probe (K-Network-Probe: queue) and
 * echoes everything else (method, path, headers). It refuses every upgrade (websocket) request with the
 * status its `?refuse=` names (400 without one), with the same echo as its body: an app that says no.
 */
export default async function setup(project: TestProject) {
  const server = http.createServer((req, res) => {
    if (req.headers["k-network-probe"] === "queue") {
      res.writeHead(200, { "content-type": "text/plain" }).end("queue");
      return;
    }
    // Echo: the gateway's origin, and the real activator's webhook receiver (any 2xx will do there).
    req.resume();
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers }));
  });
  server.on("upgrade", (req, socket) => {
    const status = Number(new URL(req.url ?? "/", "http://x").searchParams.get("refuse") ?? 400);
    const body = JSON.stringify({ method: req.method, url: req.url, headers: req.headers });
    socket.end(
      `HTTP/1.1 ${status} Refused\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  project.provide("podPort", (server.address() as AddressInfo).port);
  return () => new Promise<void>((r) => server.close(() => r()));
}
