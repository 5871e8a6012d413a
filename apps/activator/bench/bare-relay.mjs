// The floor of bench/run.mjs's warm path: a bare node:http server relaying every request to the backend
// through the same HTTP/1 client as the activator's (@thaw/queue-proxy/http1), with no activator logic (no
// revision lookup, throttler, lease, timer or header filtering). What the activator costs above it is its
// own work; what it costs itself is node:http's server and the client, which no change inside the activator
// can go under.
import http from "node:http";
import { BODY_NONE, H1Client } from "@thaw/queue-proxy/http1";

const [port, target] = process.argv.slice(2).map(Number);
const dest = `127.0.0.1:${target}`;
const client = new H1Client({
  maxConnectionsPerHost: 100,
  dial: { initialTimeoutMs: 5000, factor: 1, steps: 1, jitter: 0, sleepMinMs: 0, sleepMaxMs: 0 },
});

/** One exchange: the response head and a small body written back as they come (the activator's way). */
class Sink {
  constructor(res) {
    this.res = res;
  }
  onConnect() {}
  startResponse(status, fields) {
    this.remaining = fields.contentLength === "" ? -1 : Number(fields.contentLength);
    this.res.writeHead(status, fields.list);
    return true;
  }
  onData(chunk) {
    if (chunk.length === this.remaining) {
      this.ended = true;
      this.res.end(chunk.toString("latin1"), "latin1");
      return true;
    }
    return this.res.write(Buffer.from(chunk));
  }
  onComplete() {
    if (!this.ended) this.res.end();
  }
  onError() {
    this.res.destroy();
  }
  resumeWith() {}
}

const server = http.createServer((req, res) => {
  const headers = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() !== "host") headers.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  client.dispatch(
    dest,
    { method: req.method, path: req.url, headers, body: null, framing: BODY_NONE },
    new Sink(res),
  );
});
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1");
