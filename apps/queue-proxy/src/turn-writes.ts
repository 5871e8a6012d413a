/**
 * Writes that leave together at the end of the event loop's turn. A socket written through
 * `holdForTurn` is corked until the turn's poll phase has run every callback it had, then uncorked with
 * the others (one `setImmediate` for all of them): the requests one poll of the clients brought reach the
 * app in a burst, so an app on the same core is woken once for them and reads them in one poll of its
 * own, instead of once per request. Each socket still gets one write per turn; nothing waits longer than
 * the turn.
 */
import type net from "node:net";

let held: net.Socket[] = [];

function releaseAll(): void {
  const sockets = held;
  held = [];
  for (const s of sockets) s.uncork();
}

/** Corks `socket` until the end of this turn (once per turn, whatever is written to it meanwhile). */
export function holdForTurn(socket: net.Socket): void {
  if (socket.writableCorked > 0) return;
  socket.cork();
  if (held.push(socket) === 1) setImmediate(releaseAll);
}
