import http from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { closedPort, startTcpServer } from "../src/node/testing.js";

/**
 * Runs in Node before the workerd pool starts: an HTTP server that answers `/status/<code>` with that
 * status, `/redirect-to/<code>` with a 302 there, and `/seen` with the headers of the last other request, a TCP listener, and a closed port.
 */
export default async function setup(project: TestProject) {
  let lastHeaders: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/seen") {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(lastHeaders));
      return;
    }
    lastHeaders = req.rawHeaders;
    const hop = /^\/redirect-to\/(\d{3})$/.exec(url.pathname);
    if (hop) {
      res.writeHead(302, { location: `/status/${hop[1]}` });
      res.end();
      return;
    }
    const m = /^\/status\/(\d{3})$/.exec(url.pathname);
    res.statusCode = m ? Number(m[1]) : 404;
    res.end("body that the transport drains");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const tcp = await startTcpServer();
  project.provide("httpPort", (server.address() as AddressInfo).port);
  project.provide("tcpPort", tcp.port);
  project.provide("closedPort", await closedPort());
  return async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await tcp.stop();
  };
}
