import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { canConnect, freePort, waitPort } from "./ports.mjs";

const open: net.Server[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function listenOn(port: number): Promise<net.Server> {
  const server = net.createServer((socket) => socket.end());
  open.push(server);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

describe("freePort", () => {
  it("returns a loopback port a server can listen on at once", async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    expect(await canConnect(port)).toBe(false);
    const server = await listenOn(port);
    expect((server.address() as net.AddressInfo).port).toBe(port);
  });
});

describe("canConnect", () => {
  it("is true while a server listens and false once it has closed", async () => {
    const server = await listenOn(0);
    const { port } = server.address() as net.AddressInfo;
    expect(await canConnect(port)).toBe(true);
    open.splice(open.indexOf(server), 1);
    await new Promise((r) => server.close(r));
    expect(await canConnect(port)).toBe(false);
  });
});

describe("waitPort", () => {
  it("returns once a server that starts late accepts", async () => {
    const port = await freePort();
    const started = new Promise((r) => setTimeout(r, 150)).then(() => listenOn(port));
    await waitPort(port, undefined, { attempts: 50, intervalMs: 20 });
    await started;
    expect(await canConnect(port)).toBe(true);
  });

  it("gives up after its attempts, naming the server and its stderr", async () => {
    const port = await freePort();
    const server = { name: "backend", stderrTail: () => "EADDRINUSE" };
    const t0 = performance.now();
    await expect(waitPort(port, server, { attempts: 3, intervalMs: 10 })).rejects.toThrow(
      `backend did not listen on ${port}: EADDRINUSE`,
    );
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
