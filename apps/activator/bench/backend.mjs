// A minimal pod for the benchmark: answers the activator's queue probe and "ok" to everything else.
import http from "node:http";

const port = Number(process.argv[2]);
const server = http.createServer((req, res) => {
  if (req.headers["k-network-probe"] === "queue") {
    res.end("queue");
    return;
  }
  res.writeHead(200, { "content-type": "text/plain", "content-length": "2" });
  res.end("ok");
});
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1");
