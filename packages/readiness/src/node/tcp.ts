import net from "node:net";
import { settleOnce } from "./guard.js";

/** Resolves once a TCP connection to host:port is established, then closes it. */
export function tcpConnect(
  host: string,
  port: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<void> {
  let socket: net.Socket | undefined;
  return settleOnce<void>(
    signal,
    timeoutMs,
    () => socket?.destroy(),
    (resolve, reject) => {
      socket = net.connect({ host, port });
      socket.once("connect", () => resolve());
      socket.once("error", reject);
    },
  );
}
