#!/usr/bin/env node
// Stand-in queue-proxy metrics ports for the scrape benchmark: one process serving `count` real loopback
// HTTP servers, each answering GET /metrics with a protobuf Stat (as thaw-queue-proxy's metrics port does).
// Prints one JSON line {"ports":[...]} once every server listens.
import { createServer } from "node:http";
import { encodeStat, PROTOBUF_CONTENT_TYPE } from "@thaw/protocol";

const count = Number(process.argv[2] ?? 250);
const ports = [];
for (let i = 0; i < count; i++) {
  const body = Buffer.from(
    encodeStat({
      podName: `pod-${process.pid}-${i}`,
      averageConcurrentRequests: 1 + (i % 7),
      averageProxiedConcurrentRequests: 0,
      requestCount: 10 + (i % 13),
      proxiedRequestCount: 0,
      processUptime: 100,
      timestamp: 0,
    }),
  );
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": PROTOBUF_CONTENT_TYPE, "content-length": body.length }).end(body);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  ports.push(server.address().port);
}
console.log(JSON.stringify({ ports }));
