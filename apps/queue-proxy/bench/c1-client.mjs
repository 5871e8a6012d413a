#!/usr/bin/env node
// The c=1 latency client (issue 19 ask 2): one keep-alive connection per target and one request in flight
// in the whole system, sent to the targets in turn (the order rotating every cycle), so each target's
// samples are taken under the same machine noise as the direct backend's. wrk's c=1 runs measure each
// target in its own seconds: a burst of noise from the shared CPU then lands on one target only, and
// the difference of two p99s taken at different times moved by more than the figure itself.
//
//   node bench/c1-client.mjs '{"targets":[{"name":"direct","port":19700},...],"rounds":5,"requests":4000}'
//
// Prints one JSON line: for each round and target, p50/p99/mean in ms over that round's samples.
// Each round ends after `requests` samples per target or `roundMs`, whichever comes first.
import net from "node:net";

const spec = JSON.parse(process.argv[2] ?? "{}");
const targets = spec.targets;
const ROUNDS = spec.rounds ?? 5;
const REQUESTS = spec.requests ?? 4000;
const ROUND_MS = spec.roundMs ?? 20_000;
const TIMEOUT_MS = 10_000;

/** One keep-alive connection that sends `GET /` and resolves with the response's latency in ns. */
function connection(port) {
  const socket = net.connect({ host: "127.0.0.1", port, noDelay: true });
  const request = Buffer.from(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`, "latin1");
  let buf = Buffer.alloc(0);
  let waiting = null;
  socket.on("data", (chunk) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    if (waiting === null) return;
    const end = buf.indexOf("\r\n\r\n");
    if (end < 0) return;
    const m = /\r\ncontent-length:\s*(\d+)/i.exec(buf.toString("latin1", 0, end));
    if (m === null) {
      waiting.reject(new Error(`port ${port}: response without content-length`));
      return;
    }
    const total = end + 4 + Number(m[1]);
    if (buf.length < total) return;
    const status = buf.toString("latin1", 9, 12);
    buf = buf.subarray(total);
    const w = waiting;
    waiting = null;
    clearTimeout(w.timer);
    if (status !== "200") w.reject(new Error(`port ${port}: status ${status}`));
    else w.resolve(process.hrtime.bigint() - w.sent);
  });
  socket.on("error", (err) => waiting?.reject(err));
  socket.on("close", () => waiting?.reject(new Error(`port ${port}: connection closed`)));
  const ready = new Promise((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return {
    ready,
    close: () => socket.destroy(),
    send: () =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`port ${port}: no answer in ${TIMEOUT_MS} ms`)),
          TIMEOUT_MS,
        );
        waiting = { resolve, reject, timer, sent: process.hrtime.bigint() };
        socket.write(request);
      }),
  };
}

/** The q-quantile of sorted `xs` (nearest rank). */
function quantile(xs, q) {
  return xs[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];
}

const conns = targets.map((t) => connection(t.port));
await Promise.all(conns.map((c) => c.ready));
// Warm-up: connections, JIT, the proxies' upstream pools.
for (let i = 0; i < 500; i++) for (const c of conns) await c.send();
const rounds = [];
for (let r = 0; r < ROUNDS; r++) {
  const samples = targets.map(() => []);
  const until = Date.now() + ROUND_MS;
  for (let i = 0; i < REQUESTS && Date.now() < until; i++) {
    for (let k = 0; k < targets.length; k++) {
      const j = (i + k) % targets.length;
      samples[j].push(Number(await conns[j].send()) / 1e6);
    }
  }
  rounds.push(
    Object.fromEntries(
      targets.map((t, j) => {
        const xs = samples[j].sort((a, b) => a - b);
        const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
        return [t.name, { n: xs.length, p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), mean }];
      }),
    ),
  );
}
for (const c of conns) c.close();
process.stdout.write(`${JSON.stringify({ rounds })}\n`);
