import net from "node:net";

/** A loopback TCP listener that can be closed and reopened on the same port. */
export interface TcpTestServer {
  host: string;
  port: number;
  /** Connections accepted so far, over every listening period. */
  readonly accepted: number;
  /** True while listening. */
  readonly listening: boolean;
  /** Stops listening and drops open connections. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
  /** Called after each accepted connection with the running count. */
  onConnection?: (count: number) => void;
}

/** Starts a TCP listener on 127.0.0.1 (port 0, or `port`) that accepts and closes connections. */
export async function startTcpServer(port = 0): Promise<TcpTestServer> {
  let accepted = 0;
  const sockets = new Set<net.Socket>();
  const make = () =>
    net.createServer((socket) => {
      accepted++;
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {});
      socket.end();
      server.onConnection?.(accepted);
    });
  let listener = make();
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      listener.once("error", reject);
      listener.listen(server.port, "127.0.0.1", () => {
        listener.off("error", reject);
        resolve();
      });
    });
  const server: TcpTestServer = {
    host: "127.0.0.1",
    port,
    get accepted() {
      return accepted;
    },
    get listening() {
      return listener.listening;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (!listener.listening) return resolve();
        listener.close(() => resolve());
      }),
    restart: async () => {
      if (listener.listening) return;
      listener = make();
      await listen();
    },
  };
  await listen();
  server.port = (listener.address() as net.AddressInfo).port;
  return server;
}

/** A loopback port with nothing listening on it (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
