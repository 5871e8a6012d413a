import { createServer } from "node:net";

/** A TCP port free on `host` right now: the kernel picks it for a listener that is then closed. */
function pickPort(host: string): Promise<{ port: number; release: () => void }> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      // close() gives the port back at once (the socket is closed synchronously); its callback only reports it.
      const release = () => void srv.close();
      if (port > 0) resolve({ port, release });
      else {
        release();
        reject(new Error("no port assigned"));
      }
    });
  });
}

/**
 * `count` distinct TCP ports free on `host` right now (the kernel picks them; all are held until each is
 * known, so none repeats). A pod's ports are told to its containers before they start, as Knative does.
 * All are picked at once and resolve within the tick (an IP host needs no lookup): a cold start does not
 * wait for this process's event loop to come round.
 */
export async function freePorts(count: number, host = "127.0.0.1"): Promise<number[]> {
  const picked = await Promise.allSettled(Array.from({ length: count }, () => pickPort(host)));
  for (const p of picked) if (p.status === "fulfilled") p.value.release();
  const failed = picked.find((p): p is PromiseRejectedResult => p.status === "rejected");
  if (failed) throw failed.reason;
  return picked.map((p) => (p as PromiseFulfilledResult<{ port: number }>).value.port);
}
