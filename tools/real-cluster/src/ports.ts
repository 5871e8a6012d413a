import { createServer } from "node:net";

/** A port free on `host` now; the caller binds it at once (a race with another process stays possible). */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", (e) =>
      reject(new Error(`no free port on ${host}: ${e.message} (is ${host} an address of this host?)`)),
    );
    s.listen(0, host, () => {
      const a = s.address();
      const port = typeof a === "object" && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}
