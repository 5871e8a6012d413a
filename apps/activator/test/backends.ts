import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A stand-in for a pod's queue-proxy: answers the activator's queue probe, echoes everything else. */
export interface Backend {
  server: Server;
  port: number;
  addr: string;
  /** Requests seen (not probes), with their headers and bodies. */
  seen: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[];
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

const echo: Handler = (req, res, body) => {
  res.writeHead(200, { "content-type": "text/plain", "x-backend": String(req.socket.localPort) });
  res.end(`${req.method} ${req.url} ${body}`);
};

/** Starts a backend on 127.0.0.1 (port 0 unless given). */
export async function startBackend(handler: Handler = echo, port = 0): Promise<Backend> {
  const seen: Backend["seen"] = [];
  const server = createServer((req, res) => {
    if (req.headers["k-network-probe"] === "queue") {
      res.writeHead(200).end("queue");
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      void handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  const p = (server.address() as AddressInfo).port;
  return {
    server,
    port: p,
    addr: `127.0.0.1:${p}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A port nothing listens on (bound then released). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
