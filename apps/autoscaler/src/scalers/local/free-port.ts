import { createServer, type Server } from "node:net";

/**
 * `count` distinct TCP ports free on `host` right now (the kernel picks them; all are held until each is
 * known, so none repeats). A pod's ports are told to its containers before they start, as Knative does.
 */
export async function freePorts(count: number, host = "127.0.0.1"): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const srv = createServer();
      srv.unref();
      servers.push(srv);
      ports.push(
        await new Promise<number>((resolve, reject) => {
          srv.once("error", reject);
          srv.listen(0, host, () => {
            const addr = srv.address();
            const port = typeof addr === "object" && addr ? addr.port : 0;
            if (port > 0) resolve(port);
            else reject(new Error("no port assigned"));
          });
        }),
      );
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
