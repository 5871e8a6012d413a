import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { burstLosses, fireBurst, NEVER_ARRIVED, tallyBurst } from "./overload.mjs";

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** A server that answers every request but those whose index `silent` names (it keeps them unanswered). */
async function serve(silent: (i: number) => boolean): Promise<{ port: number; handled: () => number }> {
  let handled = 0;
  server = createServer((req, res) => {
    const i = Number(req.url?.split("/").pop());
    if (silent(i)) return;
    handled++;
    res.end("ok");
  });
  await new Promise<void>((r) => server?.listen(0, "127.0.0.1", () => r()));
  return { port: (server.address() as AddressInfo).port, handled: () => handled };
}

describe("fireBurst's neverArrived", () => {
  it("ends the pending requests as NEVER_ARRIVED when the part under test says none of them reached it", async () => {
    const s = await serve((i) => i % 10 === 0);
    const asked: number[] = [];
    const results = await fireBurst({
      port: s.port,
      host: "x",
      count: 30,
      timeoutMs: 20_000,
      quietMs: 300,
      neverArrived: async (pending) => {
        asked.push(pending);
        return s.handled() === 30 - pending;
      },
    });
    expect(asked).toEqual([3]);
    expect(results.filter((r) => r.error === NEVER_ARRIVED).map((r) => r.i)).toEqual([0, 10, 20]);
    // Not losses: the burst's losses count only what reached the part under test.
    expect(burstLosses(results)).toMatchObject({ errors: 0, otherStatuses: [] });
    expect(tallyBurst(results).neverArrived).toBe(3);
  });

  it("leaves them to their timeout, as losses, when the part under test had them", async () => {
    const s = await serve((i) => i === 4);
    const results = await fireBurst({
      port: s.port,
      host: "x",
      count: 8,
      timeoutMs: 2500,
      quietMs: 300,
      // The server holds request 4 itself: it is Thaw's to answer, so it is not "never arrived".
      neverArrived: async () => false,
    });
    expect(results.find((r) => r.i === 4)?.error).toBe("TIMEOUT");
    expect(burstLosses(results).errors).toBe(1);
    expect(tallyBurst(results).neverArrived).toBe(0);
  });
});
