import type { Server } from "node:net";

const tick = () => new Promise<void>((r) => setImmediate(r));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Stops `server` listening without resetting connections that were already under way, and resolves with
 * `closed`, the promise of its close (all its connections ended). (A promise resolved with a bare promise
 * would wait for it: the stop used to wait for every connection to end before closing idle ones.)
 *
 * Closing a listener resets every connection still in the kernel's accept queue, and on a busy machine a
 * client can see its connect complete well before Node accepts it: the event loop is late, Node runs a due
 * timer before it polls the listener, and the handshake's last step may itself be deferred. So the listener
 * stays open for `pauseMs`, then until `quietMs` have passed, with the listener polled after them, without a
 * new connection (at most `capMs` in all; later clients are refused, never reset).
 */
export async function closeListenerWhenQuiet(
  server: Server,
  { pauseMs = 100, quietMs = 50, capMs = 2000 }: { pauseMs?: number; quietMs?: number; capMs?: number } = {},
): Promise<{ closed: Promise<void> }> {
  let accepted = 0;
  const count = () => {
    accepted++;
  };
  server.on("connection", count);
  const until = performance.now() + capMs;
  await sleep(pauseMs);
  await tick();
  for (;;) {
    const seen = accepted;
    await sleep(quietMs);
    await tick();
    if (accepted === seen || performance.now() >= until) break;
  }
  server.off("connection", count);
  return { closed: new Promise<void>((resolve) => server.close(() => resolve())) };
}
