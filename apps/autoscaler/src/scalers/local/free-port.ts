import { createServer } from "node:net";

/**
 * A TCP port free on `host` right now (the kernel picks it). Used for the user app's `PORT`, which the app
 * must be told before it starts; the queue-proxy binds port 0 itself and reports what it got.
 */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => (port > 0 ? resolve(port) : reject(new Error("no port assigned"))));
    });
  });
}
