import { afterEach, describe, expect, it } from "vitest";
import { startBackend } from "../../test/backends.js";
import { createH1Forwarder } from "./h1-forwarder.js";
import { createProbeFetch } from "./probe-fetch.js";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A pod (test/backends.ts, which answers the queue probe) whose answer the test picks by path. */
async function pod(): Promise<string> {
  const backend = await startBackend((req, res) => {
    if (req.url === "/healthz") res.end("queue");
    else if (req.url === "/host") res.end(req.headers.host);
    else if (req.url === "/empty") res.writeHead(204).end();
    else if (req.url === "/huge") res.end("x".repeat(100 * 1024));
    // "/never": no answer
  });
  cleanup.push(() => backend.close());
  return backend.addr;
}

function probeFetch() {
  const pools = createH1Forwarder();
  cleanup.push(() => pools.close());
  return createProbeFetch(pools.client);
}

describe("createProbeFetch over the pods' HTTP/1 pools", () => {
  it("answers status and body, and sends a given host header as the Host", async () => {
    const dest = await pod();
    const res = await probeFetch()(`http://${dest}/healthz`, {
      method: "GET",
      headers: { host: "hello-00001-private.default", "k-network-probe": "queue" },
    });
    expect([res.status, await res.text()]).toEqual([200, "queue"]);
    const host = await probeFetch()(`http://${dest}/host`, {
      method: "GET",
      headers: { host: "hello-00001-private.default" },
    });
    expect(await host.text()).toBe("hello-00001-private.default");
    expect(await (await probeFetch()(`http://${dest}/host`, { method: "GET" })).text()).toBe(dest);
  });

  it("a 204 is a Response without a body", async () => {
    const res = await probeFetch()(`http://${await pod()}/empty`, { method: "GET" });
    expect([res.status, res.body]).toEqual([204, null]);
  });

  it.each([
    { name: "an answer longer than 64 KiB", path: "/huge", abort: false, want: /longer than 65536 bytes/ },
    { name: "the signal firing first", path: "/never", abort: true, want: /probe timeout/ },
  ])("fails on $name", async ({ path, abort, want }) => {
    const ac = new AbortController();
    const pending = probeFetch()(`http://${await pod()}${path}`, { method: "GET", signal: ac.signal });
    if (abort) setTimeout(() => ac.abort(new Error("probe timeout")), 50);
    await expect(pending).rejects.toThrow(want);
  });

  it("refuses anything but http:", async () => {
    await expect(probeFetch()("https://127.0.0.1:1/healthz", { method: "GET" })).rejects.toThrow(
      /only http: URLs/,
    );
  });
});
