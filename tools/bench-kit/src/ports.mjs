import net from "node:net";
import { sleep } from "./sleep.mjs";

/** A free loopback port: the kernel picks one for a throwaway listener, which is closed again. */
export async function freePort(host = "127.0.0.1") {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, host, () => resolve(undefined)));
  const address = /** @type {net.AddressInfo} */ (server.address());
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  return address.port;
}

/**
 * Whether a TCP connection to `host:port` is accepted right now.
 * @param {number} port
 * @returns {Promise<boolean>}
 */
export function canConnect(port, host = "127.0.0.1") {
  return new Promise((resolve) => {
    const socket = net.connect(port, host, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

/**
 * Polls `127.0.0.1:port` until it accepts a connection; throws after `attempts` tries `intervalMs` apart,
 * naming the server and the tail of its stderr when one is given (a crashed child says why there).
 * @param {number} port
 * @param {{ name: string, stderrTail: () => string }} [server]
 * @param {{ attempts?: number, intervalMs?: number }} [options]
 */
export async function waitPort(port, server, { attempts = 100, intervalMs = 100 } = {}) {
  for (let i = 0; i < attempts; i++) {
    if (await canConnect(port)) return;
    await sleep(intervalMs);
  }
  throw new Error(`${server?.name ?? "server"} did not listen on ${port}: ${server?.stderrTail() ?? ""}`);
}
