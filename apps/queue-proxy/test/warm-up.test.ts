import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/config.js";
import { warmUp } from "../src/warm-up.js";
import { KNATIVE_ENV } from "./helpers.js";

/** Listening servers and open sockets of this process, by kind. */
function handles(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) out[kind] = (out[kind] ?? 0) + 1;
  return { servers: out.TCPServerWrap ?? 0, sockets: out.TCPSocketWrap ?? 0 };
}

describe("warm-up (THAW_WARM_UP)", () => {
  it("is on by default and THAW_WARM_UP=false turns it off", () => {
    const on = parseConfig({ ...KNATIVE_ENV });
    const off = parseConfig({ ...KNATIVE_ENV, THAW_WARM_UP: "false" });
    expect(on.ok && on.value.warmUp).toBe(true);
    expect(off.ok && off.value.warmUp).toBe(false);
  });

  it("answers 8 of 8 through the throwaway queue-proxy and leaves no server or socket behind", async () => {
    const parsed = parseConfig({ ...KNATIVE_ENV, USER_PORT: "1" });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const before = handles();
    // Every queue probe and every proxied request was answered 200 through the throwaway copy.
    expect(await warmUp(parsed.value)).toBe(8);
    // Closed sockets leave the list on the next turns of the loop.
    for (let i = 0; i < 50 && handles().sockets > before.sockets; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(handles()).toEqual(before);
  });
});
