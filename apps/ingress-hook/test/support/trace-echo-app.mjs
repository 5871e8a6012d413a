// A pod's app for the tracing test: answers each request with the trace-context headers it received.
import { createServer } from "node:http";

const server = createServer((req, res) => {
  const body = JSON.stringify({
    traceparent: req.headers.traceparent ?? null,
    tracestate: req.headers.tracestate ?? null,
  });
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
});
server.listen(Number(process.env.PORT), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
