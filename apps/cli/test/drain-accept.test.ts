/**
 * `thaw up`'s stack in this process, stopped while connections wait in the kernel's accept queue. On a loaded
 * machine the gateway's event loop can be busy past its pre-close pause; Node then runs the due timer before
 * it polls the listener, and closing the listener at that moment resets every connection the kernel had
 * completed but Node had not yet accepted. Those clients did connect, so their requests must be answered.
 */
import net from "node:net";
import { describe, expect, it } from "vitest";
import { echoConfig, stackFrom } from "./support/stack-harness.js";

/** Sends one request on a connected socket; resolves with the status line, or the error's code. */
function statusOn(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    let got = "";
    socket.on("data", (d) => {
      got += d.toString("latin1");
    });
    socket.on("error", (e: NodeJS.ErrnoException) => resolve(`ERR ${e.code ?? e.message}`));
    socket.on("close", () => resolve(got.split("\r\n")[0] ?? ""));
    socket.write("GET / HTTP/1.1\r\nHost: nobody.localhost\r\nConnection: close\r\n\r\n");
  });
}

describe("thaw up stack: stopping with connections not yet accepted", () => {
  it("answers the connections the kernel completed while the event loop was busy, resets none", async () => {
    const { stack, dispose } = await stackFrom(echoConfig());
    const port = Number(new URL(stack.url).port);
    const closed = stack.close();
    const sockets = Array.from({ length: 20 }, () => net.connect(port, "127.0.0.1"));
    // Busy past the gateway's 100 ms pause before it stops listening: the kernel completes the handshakes
    // meanwhile, and no poll of the listener runs before the pause's timer is due.
    const end = performance.now() + 250;
    while (performance.now() < end);
    const statuses = await Promise.all(sockets.map(statusOn));
    // nobody.localhost is no service: the gateway's own 404, which shows the connection was served.
    expect(statuses.filter((s) => !s.startsWith("HTTP/1.1 404"))).toEqual([]);
    await closed;
    await dispose();
  }, 60_000);
});
