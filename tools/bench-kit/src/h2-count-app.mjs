#!/usr/bin/env node
// The counting app of h2-abuse.mjs as a process (a pod's app under `thaw up`): PORT, HTTP/1.1 and h2c on
// one port; `GET /count` answers `{ "rr": <requests whose path starts with /rr/> }`.
import { countApp } from "./h2-abuse.mjs";

const port = Number(process.env.PORT ?? 8080);
if (!Number.isInteger(port) || port <= 0) {
  console.error("h2-count-app: PORT must be a port number");
  process.exit(1);
}
await countApp({ port, http1Only: process.env.HTTP1_ONLY === "1" });
