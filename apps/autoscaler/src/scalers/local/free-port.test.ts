import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePorts } from "./free-port.js";

function bind(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve()));
  });
}

describe("freePorts (real sockets on loopback)", () => {
  it("gives distinct ports that are free again the moment it resolves", async () => {
    const ports = await freePorts(5);
    expect(new Set(ports).size).toBe(5);
    for (const p of ports) expect(p).toBeGreaterThan(0);
    // Every one can be bound at once: freePorts held none of them past its return.
    await Promise.all(ports.map(bind));
  });
});
