import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type Backend, freePort, startBackend } from "../../test/backends.js";
import { UpstreamError, type UpstreamRequest, type UpstreamResponse } from "../ports.js";
import { createH1Forwarder, type H1Forwarder } from "./h1-forwarder.js";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A pod (test/backends.ts) that also counts the connections it accepted and holds open. */
async function pod(handler: (req: IncomingMessage, res: ServerResponse) => void = (_q, r) => r.end("ok")) {
  const backend = await startBackend((req, res) => handler(req, res));
  cleanup.push(() => backend.close());
  const open = new Set<Socket>();
  let accepted = 0;
  backend.server.on("connection", (s) => {
    accepted++;
    open.add(s);
    s.once("close", () => open.delete(s));
  });
  return { dest: backend.addr, seen: backend.seen, open: () => open.size, accepted: () => accepted };
}

function forwarder(): H1Forwarder {
  const f = createH1Forwarder();
  cleanup.push(() => f.close());
  return f;
}

function request(r: Partial<UpstreamRequest> = {}): UpstreamRequest {
  return {
    method: "GET",
    path: "/",
    headers: new Headers(),
    body: null,
    signal: new AbortController().signal,
    ...r,
  };
}

async function text(res: UpstreamResponse): Promise<string> {
  return new Response(res.body).text();
}

describe("createH1Forwarder: requests", () => {
  it.each([
    {
      name: "GET without a body: no framing",
      method: "GET",
      body: null,
      te: undefined,
      cl: undefined,
      want: "",
    },
    { name: "POST without a body: content-length 0", method: "POST", body: null, cl: "0", want: "" },
    {
      name: "bytes: their length",
      method: "POST",
      body: new TextEncoder().encode("abc"),
      cl: "3",
      want: "abc",
    },
    {
      name: "a stream with a declared length: that length",
      method: "PUT",
      body: "stream",
      length: "4",
      cl: "4",
      want: "wxyz",
    },
    {
      name: "a stream of unknown length: chunked",
      method: "POST",
      body: "stream",
      te: "chunked",
      want: "wxyz",
    },
  ] as const)("frames the body: $name", async (row) => {
    const p = await pod();
    const f = forwarder();
    const headers = new Headers({ "x-a": "1" });
    if ("length" in row && row.length !== undefined) headers.set("content-length", row.length);
    const body =
      row.body === "stream"
        ? new ReadableStream<Uint8Array>({
            start(c) {
              c.enqueue(new TextEncoder().encode("wx"));
              c.enqueue(new TextEncoder().encode("yz"));
              c.close();
            },
          })
        : row.body;
    const res = await f.forward(p.dest, request({ method: row.method, path: "/p?q=1", headers, body }));
    expect([res.status, await text(res)]).toEqual([200, "ok"]);
    const seen = p.seen[0] as Backend["seen"][number];
    expect([seen.method, seen.url, seen.body]).toEqual([row.method, "/p?q=1", row.want]);
    expect(seen.headers["content-length"]).toBe("cl" in row ? row.cl : undefined);
    expect(seen.headers["transfer-encoding"]).toBe("te" in row ? row.te : undefined);
    expect([seen.headers["x-a"], seen.headers.host]).toEqual(["1", p.dest]);
  });

  it("keeps one connection per pod across requests, and retain closes a departed pod's", async () => {
    const [a, b] = [await pod(), await pod()];
    const f = forwarder();
    for (let i = 0; i < 3; i++) {
      await text(await f.forward(a.dest, request()));
      await text(await f.forward(b.dest, request()));
    }
    expect([a.accepted(), b.accepted()]).toEqual([1, 1]);
    f.retain([b.dest]);
    for (let i = 0; i < 100 && a.open() > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect([a.open(), b.open()]).toEqual([0, 1]);
  });
});

describe("createH1Forwarder: answers", () => {
  it("reads a small body of known length whole, and streams one of unknown length", async () => {
    const p = await pod((req, res) => {
      if (req.url === "/small") res.writeHead(201, { "x-b": "2", "content-length": "5" }).end("hello");
      else {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write("data: 1\n\n");
        setTimeout(() => res.end("data: 2\n\n"), 20);
      }
    });
    const f = forwarder();
    const small = await f.forward(p.dest, request({ path: "/small" }));
    expect(small.body).toBeInstanceOf(Uint8Array);
    expect([
      small.status,
      small.headers.get("x-b"),
      Buffer.from(small.body as Uint8Array).toString(),
    ]).toEqual([201, "2", "hello"]);
    const stream = await f.forward(p.dest, request({ path: "/stream" }));
    expect(stream.body).toBeInstanceOf(ReadableStream);
    expect(stream.headers.get("transfer-encoding")).toBeNull();
    expect(await text(stream)).toBe("data: 1\n\ndata: 2\n\n");
  });

  it("a HEAD answer has no body", async () => {
    const p = await pod((_req, res) => res.writeHead(200, { "content-length": "5" }).end());
    const res = await forwarder().forward(p.dest, request({ method: "HEAD" }));
    expect([res.status, res.body, res.headers.get("content-length")]).toEqual([200, null, "5"]);
  });

  it("streams a large body with back-pressure: a reader that stops holds the pod's writes", async () => {
    const total = 64 * 1024 * 1024;
    let written = 0;
    const p = await pod((_req, res) => {
      const block = Buffer.alloc(256 * 1024, 1);
      const pump = () => {
        while (written < total) {
          written += block.length;
          if (!res.write(block)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    const res = await forwarder().forward(p.dest, request());
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let got = ((await reader.read()).value as Uint8Array).byteLength;
    await new Promise((r) => setTimeout(r, 300));
    // Socket buffers hold a few MiB; without back-pressure the whole 64 MiB would have been taken in.
    expect(written).toBeLessThan(total / 2);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      got += value.byteLength;
    }
    expect([got, written]).toEqual([total, total]);
  });
});

describe("createH1Forwarder: failures", () => {
  it("a refused connection is an UpstreamError that was not sent (replayable anywhere)", async () => {
    const err = await forwarder()
      .forward(`127.0.0.1:${await freePort()}`, request())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect([(err as UpstreamError).sent, (err as Error).message]).toEqual([
      false,
      expect.stringMatching(/ECONNREFUSED/),
    ]);
  });

  it("a connection dropped after the request went out was sent", async () => {
    const p = await pod((req) => req.socket.destroy());
    const err = await forwarder()
      .forward(p.dest, request({ method: "POST", body: new Uint8Array([1]) }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).sent).toBe(true);
  });

  it("the request's signal cancels a forward that has no answer yet, with its reason, and drops the connection", async () => {
    const p = await pod(() => {
      // never answers
    });
    const ac = new AbortController();
    const pending = forwarder().forward(p.dest, request({ signal: ac.signal }));
    for (let i = 0; i < 100 && p.seen.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const reason = new Error("activator request timeout");
    ac.abort(reason);
    await expect(pending).rejects.toBe(reason);
    for (let i = 0; i < 100 && p.open() > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(p.open()).toBe(0);
  });

  it("a signal that already fired sends nothing", async () => {
    const p = await pod();
    const ac = new AbortController();
    ac.abort(new Error("gone"));
    await expect(forwarder().forward(p.dest, request({ signal: ac.signal }))).rejects.toThrow("gone");
    expect(p.accepted()).toBe(0);
  });
});
