// Reference: node-http-proxy with a keep-alive agent. Usage: node http-proxy.mjs <port> <backendPort>
import http from "node:http";
import httpProxy from "http-proxy";

const [port, backend] = process.argv.slice(2).map(Number);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1000 });
const proxy = httpProxy.createProxyServer({ target: `http://127.0.0.1:${backend}`, agent });
proxy.on("error", (_err, _req, res) => {
  res.writeHead?.(502);
  res.end();
});
const server = http.createServer((req, res) => proxy.web(req, res));
server.keepAliveTimeout = 120_000;
server.listen(port, "127.0.0.1");
process.on("SIGTERM", () => process.exit(0));
