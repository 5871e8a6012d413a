// Misbehaving clients for timeout tests: a slowloris head trickled a byte at a time, a connection that never
// sends a byte, and a keep-alive connection left idle after one request. Each resolves with how long the
// server took to close the socket (and what it sent), or with closedAfterMs null if it was still open at maxMs.
import net from "node:net";

/** Connects, runs `start(socket)`, and resolves when the server closes the socket or at `maxMs`. */
function watchClose(port, maxMs, start) {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    let t0 = 0;
    let timer;
    const done = (closedAfterMs) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ closedAfterMs, received });
    };
    socket.on("data", (d) => {
      received += d.toString("latin1");
    });
    socket.on("error", () => {});
    socket.on("close", () => done(Math.round(performance.now() - t0)));
    socket.once("connect", () => {
      t0 = performance.now();
      timer = setTimeout(() => done(null), maxMs);
      start(socket, () => (t0 = performance.now()));
    });
  });
}

/** A request head trickled one byte every `byteIntervalMs` that never ends. */
export function slowloris(port, { host = "a", byteIntervalMs = 1000, maxMs = 30_000 } = {}) {
  return watchClose(port, maxMs, (socket) => {
    socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\n`);
    const tick = setInterval(() => {
      if (socket.destroyed) clearInterval(tick);
      else socket.write("x");
    }, byteIntervalMs);
    socket.once("close", () => clearInterval(tick));
  });
}

/** A connection that never sends a byte. */
export function silentSocket(port, { maxMs = 30_000 } = {}) {
  return watchClose(port, maxMs, () => {});
}

/** One complete request, then the kept-alive connection left idle; the clock starts at the response. */
export function idleAfterRequest(port, { host = "a", path = "/", maxMs = 30_000 } = {}) {
  return watchClose(port, maxMs, (socket, restart) => {
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    socket.once("data", () => restart());
  });
}

/**
 * The slow-client scenario every server's test runs: 5 slowloris heads, 5 silent sockets and one idle
 * keep-alive at `port`, while `normal(i)` is called back to back for twice `headersMs` (each call one
 * ordinary request that must succeed). Prints one summary line under `label` and resolves with the results
 * and `problems`: each broken promise (a socket not closed near the head timeout, a slowloris without
 * 408, a normal request slower than the limit) as a sentence, empty when all hold. With `idle: "open"` the
 * idle keep-alive must stay open instead (a queue-proxy, as Knative's Go server, has no idle timeout).
 */
export async function slowClientScenario(
  port,
  { label, headersMs, host, idlePath, idle: idleRule = "closed", normal },
) {
  const keptOpen = idleRule === "open";
  const slow = Array.from({ length: 5 }, () => slowloris(port, { host, byteIntervalMs: 200, maxMs: 15_000 }));
  const silent = Array.from({ length: 5 }, () => silentSocket(port, { maxMs: 15_000 }));
  const idle = idleAfterRequest(port, { host, path: idlePath, maxMs: keptOpen ? headersMs * 3 : 15_000 });
  const latencies = [];
  const t0 = performance.now();
  for (let i = 0; i < 5000 && performance.now() - t0 < headersMs * 2; i++) {
    const s = performance.now();
    await normal(i);
    latencies.push(performance.now() - s);
  }
  const slowR = await Promise.all(slow);
  const silentR = await Promise.all(silent);
  const idleR = await idle;
  const worstMs = Math.round(Math.max(...latencies));
  process.stderr.write(
    `${label} slow clients: slowloris closed after ${slowR.map((r) => r.closedAfterMs).join("/")} ms, ` +
      `silent after ${silentR.map((r) => r.closedAfterMs).join("/")} ms, idle keep-alive ${idleR.closedAfterMs === null ? "open" : `after ${idleR.closedAfterMs} ms`}; ` +
      `${latencies.length} normal requests, worst ${worstMs} ms\n`,
  );
  const problems = [];
  for (const [kind, r] of [
    ...slowR.map((r) => ["slowloris", r]),
    ...silentR.map((r) => ["silent", r]),
    ...(keptOpen ? [] : [["idle", idleR]]),
  ]) {
    if (r.closedAfterMs === null) problems.push(`${kind} socket still open after 15 s`);
    // The server's clock starts at accept, the client's at its connect callback, which a loaded machine
    // delays: early by up to a fifth of the limit is the client's lateness, not a short timeout.
    else if (r.closedAfterMs < headersMs * 0.8 || r.closedAfterMs >= headersMs + 8000) {
      problems.push(`${kind} socket closed after ${r.closedAfterMs} ms, not near the ${headersMs} ms limit`);
    }
  }
  if (keptOpen && idleR.closedAfterMs !== null)
    problems.push(`idle keep-alive closed after ${idleR.closedAfterMs} ms; it must stay open`);
  for (const r of slowR) {
    if (!/^HTTP\/1\.1 408 /.test(r.received))
      problems.push(`slowloris got ${JSON.stringify(r.received.slice(0, 40))}, not 408`);
  }
  if (worstMs >= headersMs)
    problems.push(`a normal request took ${worstMs} ms, over the ${headersMs} ms limit`);
  return { slow: slowR, silent: silentR, idle: idleR, normal: latencies.length, worstMs, problems };
}
