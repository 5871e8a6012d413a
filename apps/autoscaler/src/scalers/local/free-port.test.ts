import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { lendPorts, podPortRange } from "./free-port.js";

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(port, "127.0.0.1", () => resolve(srv));
  });
}

/** `n` ports from a random place in the pod range: a range of its own for one test. */
function someRange(n: number): { from: number; to: number } {
  const from = podPortRange().from + Math.floor(Math.random() * 10_000);
  return { from, to: from + n - 1 };
}

/** Listens on `range.from + i` for each `i` (one something else already uses is skipped). */
async function hold(range: { from: number }, offsets: number[]): Promise<Server[]> {
  const held = await Promise.all(offsets.map((i) => listen(range.from + i).catch(() => undefined)));
  return held.filter((s): s is Server => s !== undefined);
}

const servers: Server[] = [];
const given: (() => void)[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  for (const g of given.splice(0)) g();
});

describe("lendPorts (real sockets on loopback)", () => {
  it("gives distinct ports below the kernel's ephemeral range, free again the moment it resolves", async () => {
    const lent = await lendPorts(5);
    given.push(lent.giveBack);
    expect(new Set(lent.ports).size).toBe(5);
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    const { from, to } = podPortRange();
    expect(to).toBe(Number(low) - 1);
    for (const p of lent.ports) {
      expect(p).toBeGreaterThanOrEqual(from);
      expect(p).toBeLessThanOrEqual(to);
    }
    // Every one can be bound at once: lendPorts held none of them past its return.
    servers.push(...(await Promise.all(lent.ports.map(listen))));
  });

  it("lends no port twice until it is given back, though nothing binds the first pod's yet", async () => {
    const range = someRange(10);
    const start = range.from;
    const first = await lendPorts(5, { range });
    given.push(first.giveBack);
    const second = await lendPorts(5, { range });
    given.push(second.giveBack);
    expect([...first.ports, ...second.ports].sort()).toEqual(Array.from({ length: 10 }, (_, i) => start + i));
    await expect(lendPorts(1, { range })).rejects.toThrow(/no 1 free ports/);
    first.giveBack();
    const third = await lendPorts(5, { range });
    given.push(third.giveBack);
    expect(third.ports.sort()).toEqual([...first.ports].sort());
  });

  it("passes over ports something else listens on, and says so when the range has too few", async () => {
    const range = someRange(8);
    const held = await hold(range, [0, 2, 3, 5, 6]);
    servers.push(...held);
    const heldPorts = held.map((s) => (s.address() as { port: number }).port);
    const lent = await lendPorts(3, { range });
    given.push(lent.giveBack);
    for (const p of lent.ports) {
      expect(heldPorts).not.toContain(p);
      expect(p).toBeGreaterThanOrEqual(range.from);
      expect(p).toBeLessThanOrEqual(range.to);
    }
    await expect(lendPorts(1, { range })).rejects.toThrow(
      `no 1 free ports on 127.0.0.1 between ${range.from} and ${range.to}`,
    );
  });

  it("keeps nothing lent after a refusal: the ports it tried are all lendable again once free", async () => {
    const range = someRange(8);
    const held = await hold(range, [0, 1, 3, 4, 6]);
    await expect(lendPorts(8 - held.length + 1, { range })).rejects.toThrow(/free ports/);
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
    const all = await lendPorts(8, { range });
    given.push(all.giveBack);
    expect(all.ports.sort()).toEqual(Array.from({ length: 8 }, (_, i) => range.from + i));
  });

  it("takes the ports above the ephemeral range when it starts too low to leave room below", () => {
    expect(podPortRange({ low: 32_768, high: 60_999 })).toEqual({ from: 20_480, to: 32_767 });
    expect(podPortRange({ low: 1024, high: 40_000 })).toEqual({ from: 40_001, to: 65_535 });
  });
});
