#!/usr/bin/env node
// Captures the wrk reports the parser tests read (src/fixtures/wrk-*.txt): wrk for 1-2 s against small
// loopback servers that answer 200, answer some 503s, drop some connections and leave some requests
// unanswered, and against a port where nothing listens. Run by hand: `node scripts/capture-wrk.mjs`.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import http from "node:http";
import { promisify } from "node:util";
import { freePort } from "../src/ports.mjs";
import { wrkArgs } from "../src/wrk.mjs";

const run = promisify(execFile);
const fixture = (name) => new URL(`../src/fixtures/${name}`, import.meta.url);

/** @param {(n: number, req: http.IncomingMessage, res: http.ServerResponse) => void} answer */
async function serve(answer) {
  let n = 0;
  const server = http.createServer((req, res) => answer(++n, req, res));
  await new Promise((r) => server.listen(0, "127.0.0.1", () => r(undefined)));
  return server;
}

/** @param {string} name @param {number} port @param {string[]} extra options, before the url as wrk wants */
async function capture(name, port, extra = []) {
  const url = `http://127.0.0.1:${port}/`;
  const args = [
    ...wrkArgs({ url, connections: 4, seconds: extra.length ? 2 : 1 }).slice(0, -1),
    ...extra,
    url,
  ];
  let out;
  try {
    out = (await run("wrk", args, { timeout: 20_000 })).stdout;
  } catch (err) {
    // wrk exits non-zero when it cannot connect; its report is still the fixture.
    out = `${err.stdout ?? ""}${err.stderr ?? ""}`;
  }
  writeFileSync(fixture(name), out);
  console.log(`${name}:\n${out}`);
}

const scenarios = [
  ["wrk-ok.txt", () => serve((_n, _req, res) => res.end("ok\n"))],
  [
    "wrk-non2xx.txt",
    () =>
      serve((n, _req, res) => {
        res.statusCode = n % 4 === 0 ? 503 : 200;
        res.end("ok\n");
      }),
  ],
  [
    "wrk-socket-errors.txt",
    () =>
      serve((n, req, res) => {
        if (n % 10 === 0)
          req.socket.destroy(); // read errors
        else if (n % 25 === 1)
          return; // never answered: timeouts
        else res.end("ok\n");
      }),
    ["--timeout", "1s"],
  ],
];
for (const [name, start, extra] of scenarios) {
  const server = await start();
  await capture(name, server.address().port, extra);
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}
await capture("wrk-refused.txt", await freePort());
