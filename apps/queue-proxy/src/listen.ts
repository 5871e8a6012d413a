import type { Server } from "node:net";

/** Listens and resolves with the bound port (port 0 picks a free one, for tests). */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    const done = () => {
      server.off("error", reject);
      const addr = server.address();
      resolve(typeof addr === "object" && addr !== null ? addr.port : port);
    };
    if (host === "") server.listen(port, done);
    else server.listen(port, host, done);
  });
}

/** Closes a listening server, resolving when it stopped (already-stopped servers resolve at once). */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) resolve();
    else server.close(() => resolve());
  });
}
