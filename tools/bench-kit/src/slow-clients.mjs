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
