import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { BODY_NONE, H1Client, H1Upstream, KNATIVE_DIAL_POLICY, splitHostPort } from "../src/http1.js";
import { collect, type Outcome, until } from "./helpers.js";

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

type Target = Pick<H1Client, "dispatch">;

/** GET `path` from `dest` through `client`; resolves with what the sink saw. */
function get(client: Target, dest: string, path = "/", headers: string[] = []): Promise<Outcome> {
  return collect((sink) =>
    client.dispatch(dest, { method: "GET", path, headers, body: null, framing: BODY_NONE }, sink),
  );
}

/** An app that answers with its port and the Host it saw, and counts its open connections. */
async function app(handler?: http.RequestListener) {
  const open = new Set<import("node:net").Socket>();
  let accepted = 0;
  const server = http.createServer(
    handler ?? ((req, res) => res.end(`${(req.socket.localPort ?? 0).toString()} ${req.headers.host}`)),
  );
  server.on("connection", (s) => {
    accepted++;
    open.add(s);
    s.once("close", () => open.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  closers.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const port = (server.address() as AddressInfo).port;
  return { port, dest: `127.0.0.1:${port}`, open: () => open.size, accepted: () => accepted };
}

function client(max = 4): H1Client {
  const c = new H1Client({ maxConnectionsPerHost: max, dial: KNATIVE_DIAL_POLICY });
  closers.push(() => c.destroy());
  return c;
}

describe("H1Client: one keep-alive pool per destination", () => {
  it("sends each request to its destination, with that destination as Host, one connection each", async () => {
    const [a, b] = [await app(), await app()];
    const c = client();
    for (let i = 0; i < 3; i++) {
      expect((await get(c, a.dest)).body).toBe(`${a.port} ${a.dest}`);
      expect((await get(c, b.dest)).body).toBe(`${b.port} ${b.dest}`);
    }
    expect([a.accepted(), b.accepted()]).toEqual([1, 1]);
    expect(c.destinations().sort()).toEqual([a.dest, b.dest].sort());
  });

  it("keeps a Host the request carries (a passthrough-LB private service name)", async () => {
    const a = await app();
    const out = await get(client(), a.dest, "/", ["host", "hello-00001-private.default"]);
    expect(out.body).toBe(`${a.port} hello-00001-private.default`);
  });

  it("retain closes the idle connections of the destinations left out, and keeps the others", async () => {
    const [a, b] = [await app(), await app()];
    const c = client();
    await get(c, a.dest);
    await get(c, b.dest);
    c.retain([b.dest]);
    await until(() => a.open() === 0, 2000);
    expect(b.open()).toBe(1);
    expect(c.destinations()).toEqual([b.dest]);
    // A request to the departed destination later opens a new pool.
    expect((await get(c, a.dest)).body).toBe(`${a.port} ${a.dest}`);
    expect(a.accepted()).toBe(2);
  });

  it("drop lets a request in flight finish, then closes its connection", async () => {
    let answer: (() => void) | undefined;
    const a = await app((_req, res) => {
      answer = () => res.end("late");
    });
    const c = client();
    const pending = get(c, a.dest);
    await until(() => answer !== undefined, 2000);
    c.drop(a.dest);
    answer?.();
    const out = await pending;
    expect([out.status, out.body, out.error]).toEqual([200, "late", undefined]);
    await until(() => a.open() === 0, 2000);
  });

  it.each([
    { name: "a malformed destination", dest: "no-port", closed: false, message: /host:port/ },
    { name: "a closed client", dest: "127.0.0.1:1", closed: true, message: /closed/ },
  ])("fails the request as unsent: $name", async ({ dest, closed, message }) => {
    const c = client();
    if (closed) await c.close();
    const out = await get(c, dest);
    expect(out.error?.message).toMatch(message);
    expect(out.unsent).toBe(true);
  });
});

describe("H1Upstream: its destination", () => {
  it("dials the given host and names it in the default Host", async () => {
    const server = http.createServer((req, res) => res.end(req.headers.host));
    await new Promise<void>((r) => server.listen(0, "localhost", r));
    closers.push(() => new Promise<void>((r) => server.close(() => r())));
    const port = (server.address() as AddressInfo).port;
    const pool = new H1Upstream({ host: "localhost", port, maxConnections: 1 });
    closers.push(() => pool.destroy());
    const out = await get({ dispatch: (_d, req, sink) => pool.dispatch(req, sink) }, "");
    expect([out.error, out.body]).toEqual([undefined, `localhost:${port}`]);
  });

  it("refuses a pool of no connections", () => {
    expect(() => new H1Upstream({ port: 1, maxConnections: 0 })).toThrow(
      /maxConnections must be >= 1, got 0/,
    );
  });
});

describe("splitHostPort", () => {
  it.each([
    { name: "IPv4", dest: "10.0.0.5:8012", want: { host: "10.0.0.5", port: 8012 } },
    { name: "name", dest: "hello.default.svc:80", want: { host: "hello.default.svc", port: 80 } },
    { name: "bracketed IPv6", dest: "[fd00::5]:8012", want: { host: "fd00::5", port: 8012 } },
    { name: "bare IPv6", dest: "fd00::5", want: undefined },
    { name: "no port", dest: "10.0.0.5", want: undefined },
    { name: "empty port", dest: "10.0.0.5:", want: undefined },
    { name: "port out of range", dest: "10.0.0.5:70000", want: undefined },
    { name: "port zero", dest: "10.0.0.5:0", want: undefined },
    { name: "no host", dest: ":8012", want: undefined },
  ])("$name", ({ dest, want }) => {
    expect(splitHostPort(dest)).toEqual(want);
  });
});
