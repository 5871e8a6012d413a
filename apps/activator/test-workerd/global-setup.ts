import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { startOrigin } from "./origin.js";

export default async function setup(project: TestProject) {
  const origin = await startOrigin();
  project.provide("originPort", origin.port);
  // A bare app: 200 "hello" to everything, the queue probe included (no queue-proxy in front).
  const bare = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/plain" }).end("hello");
  });
  await new Promise<void>((r) => bare.listen(0, "127.0.0.1", r));
  project.provide("barePort", (bare.address() as AddressInfo).port);
  return async () => {
    await new Promise<void>((r) => bare.close(() => r()));
    await new Promise<void>((r) => origin.server.close(() => r()));
  };
}
