// node-http-proxy with a keep-alive agent: the baseline reverse proxy of the benchmark.
import http from "node:http";
import httpProxy from "http-proxy";

const [port, target] = process.argv.slice(2).map(Number);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const proxy = httpProxy.createProxyServer({ target: `http://127.0.0.1:${target}`, agent });
proxy.on("error", (_err, _req, res) => {
  res.writeHead?.(502);
  res.end();
});
const server = http.createServer((req, res) => proxy.web(req, res));
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1");
