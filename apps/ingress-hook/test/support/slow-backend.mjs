// A real slow-starting backend: waits STARTUP_DELAY_MS, then listens on 127.0.0.1:0 and prints
// `listening <port>` (PORT fixes the port). Every answer echoes the request's method, url and headers as JSON.
// STARTUP_DELAY_MS=never keeps it from ever listening (a pod that never becomes ready).
import http from "node:http";

const delay = process.env.STARTUP_DELAY_MS ?? "500";
if (delay !== "never") {
  setTimeout(() => {
    const server = http.createServer((req, res) => {
      // Answer an activator's readiness probe the way a queue-proxy does.
      if (req.headers["k-network-probe"] === "queue") {
        res.writeHead(200, { "content-type": "text/plain", "content-length": "5" });
        res.end("queue");
        return;
      }
      const body = JSON.stringify({ method: req.method, url: req.url, headers: req.headers });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
    server.keepAliveTimeout = 60_000;
    server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () =>
      process.stdout.write(`listening ${server.address().port}\n`),
    );
    process.on("SIGTERM", () => server.close(() => process.exit(0)));
  }, Number(delay));
} else {
  setInterval(() => {}, 60_000);
  process.on("SIGTERM", () => process.exit(0));
}
