import { describe, expect, it } from "vitest";
import { stripHopByHop } from "./hop-by-hop.js";

describe("stripHopByHop", () => {
  it("drops the connection's own headers and those the Connection header names, keeps the rest", () => {
    const h = stripHopByHop(
      new Headers({
        connection: "keep-alive, X-Debug",
        "keep-alive": "timeout=5",
        "x-debug": "1",
        "proxy-authorization": "Basic x",
        "transfer-encoding": "chunked",
        upgrade: "websocket",
        "content-type": "text/plain",
        "k-proxy-request": "activator",
      }),
    );
    expect([...h.keys()].sort()).toEqual(["content-type", "k-proxy-request"]);
  });
});
