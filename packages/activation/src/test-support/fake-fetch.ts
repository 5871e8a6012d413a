import type { FetchLike } from "../probe.js";

/** How a fake host answers a queue probe. */
export type FakeAnswer = "up" | "down" | "mesh" | "404" | "wrong-body";

/**
 * A fake network for probe tests: each host answers as `state` says at the time of the probe (unknown
 * hosts refuse), and every probed host is recorded in `calls`.
 */
export function fakeFetch(state: Map<string, FakeAnswer>): { fetch: FetchLike; calls: string[] } {
  const calls: string[] = [];
  const fetch: FetchLike = async (url) => {
    const host = new URL(url).host;
    calls.push(host);
    const s = state.get(host) ?? "down";
    if (s === "down") throw new TypeError("connection refused");
    if (s === "mesh") return new Response("", { status: 503 });
    if (s === "404") return new Response("not found", { status: 404 });
    if (s === "wrong-body") return new Response("hello", { status: 200 });
    return new Response("queue", { status: 200 });
  };
  return { fetch, calls };
}
