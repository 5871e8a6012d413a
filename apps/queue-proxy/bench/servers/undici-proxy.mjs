// Reference: the smallest useful undici proxy (node:http server, Pool.stream into the response), i.e.
// roughly the ceiling for a Node proxy. Usage: node undici-proxy.mjs <port> <backendPort>
import http from "node:http";
import { Pool } from "undici";

const [port, backend] = process.argv.slice(2).map(Number);
const pool = new Pool(`http://127.0.0.1:${backend}`, {
  connections: 256,
  pipelining: 1,
  keepAliveTimeout: 60_000,
});
const skip = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "proxy-connection",
]);

function forwardHeaders(raw) {
  const out = {};
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i].toLowerCase();
    if (!skip.has(k) && k !== "host") out[k] = raw[i + 1];
  }
  return out;
}

const server = http.createServer((req, res) => {
  const hasBody =
    req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined;
  pool.stream(
    {
      path: req.url,
      method: req.method,
      headers: forwardHeaders(req.rawHeaders),
      body: hasBody ? req : null,
    },
    ({ statusCode, headers }) => {
      for (const k of skip) delete headers[k];
      res.writeHead(statusCode, headers);
      return res;
    },
    (err) => {
      if (!err) return;
      if (!res.headersSent) res.writeHead(502);
      res.end();
    },
  );
});
server.keepAliveTimeout = 120_000;
server.listen(port, "127.0.0.1");
process.on("SIGTERM", () => process.exit(0));
