/** The spare's warm-up (src/warm-up.ts): a throwaway queue-proxy in process runs the request path once. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { warmRequestPath } from "../src/warm-up.js";
import { until } from "./helpers.js";

/** Listening TCP servers and open TCP sockets of this process. */
const tcp = () => process.getActiveResourcesInfo().filter((r) => r.startsWith("TCP")).length;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("warmRequestPath", () => {
  it("proxies its probe and requests with 200s, writes nothing, and closes every port and socket", async () => {
    const before = tcp();
    const out = vi.spyOn(process.stdout, "write");
    const err = vi.spyOn(process.stderr, "write");
    expect(await warmRequestPath()).toBe(true);
    expect(out).not.toHaveBeenCalled();
    expect(err).not.toHaveBeenCalled();
    // A closed handle is released a moment after its callback.
    await until(() => tcp() === before, 5000);
  });

  it("past its bound it gives up with false and still closes everything, whatever it was doing", async () => {
    // Bounds that end before the backend listens, while the queue-proxy starts, and mid-requests.
    for (const ms of [0, 1, 3, 10, 30]) {
      const before = tcp();
      const ok = await warmRequestPath(ms);
      if (ms === 0) expect(ok).toBe(false);
      // A closed handle is released a moment after its callback; a run past its bound closes once it stops.
      await until(() => tcp() === before, 5000);
    }
  });
});
