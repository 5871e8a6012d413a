import net from "node:net";
import { describe, expect, it } from "vitest";
import { dialTimeoutFor, dialWithRetry, KNATIVE_DIAL_POLICY } from "./dial.js";

describe("dial back-off (c.3)", () => {
  it("grows the timeout by 1.4 per step from 50 ms over 15 steps", () => {
    expect(dialTimeoutFor(KNATIVE_DIAL_POLICY, 0)).toBe(50);
    expect(dialTimeoutFor(KNATIVE_DIAL_POLICY, 1)).toBeCloseTo(70);
    expect(dialTimeoutFor(KNATIVE_DIAL_POLICY, 14)).toBeCloseTo(50 * 1.4 ** 14);
    expect(KNATIVE_DIAL_POLICY.steps).toBe(15);
  });

  it("connects to a listening port", async () => {
    const server = net.createServer((s) => s.end());
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as net.AddressInfo).port;
    const socket = await new Promise<net.Socket | null>((resolve, reject) =>
      dialWithRetry("127.0.0.1", port, KNATIVE_DIAL_POLICY, (err, s) => (err ? reject(err) : resolve(s))),
    );
    expect(socket).not.toBeNull();
    socket?.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it("keeps a dial that completed while the event loop was stalled past the timeout", async () => {
    const server = net.createServer((s) => s.end());
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as net.AddressInfo).port;
    let attempts = 0;
    const connect = (h: string, p: number) => {
      attempts++;
      return net.connect({ host: h, port: p });
    };
    const socket = new Promise<net.Socket | null>((resolve, reject) =>
      dialWithRetry(
        "127.0.0.1",
        port,
        KNATIVE_DIAL_POLICY,
        (err, s) => (err ? reject(err) : resolve(s)),
        Math.random,
        connect,
      ),
    );
    // A loaded machine: the loop is blocked for three times the first timeout while the kernel connects.
    const end = performance.now() + 150;
    while (performance.now() < end);
    const s = await socket;
    expect(s).not.toBeNull();
    expect(attempts).toBe(1);
    s?.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it("fails at once on a refused connection (no retry)", async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const t0 = Date.now();
    const err = await new Promise<Error | null>((resolve) =>
      dialWithRetry("127.0.0.1", port, KNATIVE_DIAL_POLICY, (e) => resolve(e)),
    );
    expect((err as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
    expect(Date.now() - t0).toBeLessThan(500);
  });

  it("retries attempts that time out, with growing timeouts, then connects", async () => {
    const server = net.createServer((s) => s.end());
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as net.AddressInfo).port;
    const policy = { initialTimeoutMs: 20, factor: 2, steps: 5, jitter: 0, sleepMinMs: 1, sleepMaxMs: 1 };
    const attempts: number[] = [];
    const t0 = Date.now();
    // The first two attempts get sockets that never connect (a black-holed SYN), the third a real one.
    const socket = await new Promise<net.Socket | null>((resolve, reject) =>
      dialWithRetry(
        "127.0.0.1",
        port,
        policy,
        (err, s) => (err ? reject(err) : resolve(s)),
        () => 0,
        (h, p) => {
          attempts.push(Date.now() - t0);
          return attempts.length < 3 ? new net.Socket() : net.connect({ host: h, port: p });
        },
      ),
    );
    expect(socket).not.toBeNull();
    expect(attempts).toHaveLength(3);
    // 20 ms + 40 ms of timeouts before the third attempt.
    expect(attempts[2]).toBeGreaterThanOrEqual(58);
    socket?.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it("gives up after the last step with a DialTimeoutError", async () => {
    const policy = { initialTimeoutMs: 5, factor: 1.4, steps: 3, jitter: 0.1, sleepMinMs: 1, sleepMaxMs: 2 };
    let calls = 0;
    const err = await new Promise<Error | null>((resolve) =>
      dialWithRetry(
        "127.0.0.1",
        9,
        policy,
        (e) => resolve(e),
        Math.random,
        () => {
          calls++;
          return new net.Socket();
        },
      ),
    );
    expect(calls).toBe(3);
    expect(err?.name).toBe("DialTimeoutError");
    expect(err?.message).toMatch(/after 3 attempts/);
  });
});
