// The protocol matrix: every client of protocol-clients.mjs once against one path, each answer checked.
import { grpcClient, h2Session, httpEcho, sseRead, wsOpen } from "./protocol-clients.mjs";

/** Every protocol the matrix covers, by the name `exerciseProtocols` reports it under. */
export const PROTOCOLS = [
  "http1",
  "sse",
  "websocket",
  "h2c",
  "grpc-unary",
  "grpc-error-status",
  "grpc-server-stream",
  "grpc-bidi",
];

/** @param {unknown} a @param {unknown} b */
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Runs each protocol once against `target`, all at once (so against a cold service every one is held
 * through the same cold start), and checks the bytes, the order and the status each got back. Resolves with
 * one entry per protocol: `"ok"` or what went wrong, and the pids that answered.
 */
export async function exerciseProtocols(target, only = PROTOCOLS) {
  const text = `héllo ${"x".repeat(64)} \u0000\u00ff`;
  const n = 6;
  /** @type {Record<string, () => Promise<{ problem?: string, pids: string[] }>>} */
  const runs = {
    http1: async () => {
      const r = await httpEcho({ ...target, body: text });
      if (r.status !== 200 || r.body !== text)
        return { problem: `status ${r.status}, body ${JSON.stringify(r.body.slice(0, 200))}`, pids: [] };
      return { pids: [r.pid ?? ""] };
    },
    sse: async () => {
      const r = await sseRead({ ...target, n });
      const ids = r.events.map((e) => e.id);
      const want = Array.from({ length: n }, (_, i) => String(i));
      if (
        r.status !== 200 ||
        !String(r.contentType).startsWith("text/event-stream") ||
        !same(ids, want) ||
        !same(
          r.events.map((e) => e.data.i),
          want.map(Number),
        )
      )
        return {
          problem: `status ${r.status}, content-type ${r.contentType}, ids ${JSON.stringify(ids)}`,
          pids: [],
        };
      return { pids: [...new Set(r.events.map((e) => e.data.pid))] };
    },
    websocket: async () => {
      const ws = await wsOpen(target);
      const got = [];
      for (let i = 0; i < 3; i++) got.push(await ws.send(`${text} #${i}`));
      ws.close();
      const want = [0, 1, 2].map((i) => `${text} #${i}`);
      if (!same(got, want)) return { problem: `echoes ${JSON.stringify(got)}`, pids: [] };
      return { pids: [ws.pid ?? ""] };
    },
    h2c: async () => {
      const s = h2Session(target);
      try {
        const r = await s.echo(text);
        if (r.status !== 200 || r.body !== text || r.appProtocol !== "2")
          return {
            problem: `status ${r.status}, app protocol ${r.appProtocol}, body ${JSON.stringify(r.body.slice(0, 200))}`,
            pids: [],
          };
        return { pids: [r.pid ?? ""] };
      } finally {
        s.close();
      }
    },
    "grpc-unary": async () => {
      const c = grpcClient(target);
      try {
        const r = await c.unary(text);
        if (r.text !== text) return { problem: `reply ${JSON.stringify(r)}`, pids: [] };
        return { pids: [r.pid] };
      } finally {
        c.close();
      }
    },
    "grpc-error-status": async () => {
      const c = grpcClient(target);
      try {
        // NOT_FOUND (5) from the app, in a trailers-only answer: the path relays the status and its message.
        const r = await c.unaryFailing(5);
        if (r.code !== 5 || !r.details.startsWith("asked to fail by "))
          return { problem: `status ${r.code} ${JSON.stringify(r.details)}`, pids: [] };
        return { pids: [r.details.slice("asked to fail by ".length)] };
      } finally {
        c.close();
      }
    },
    "grpc-server-stream": async () => {
      const c = grpcClient(target);
      try {
        const got = await c.serverStream(n, 20, text);
        if (
          !same(
            got.map((m) => m.i),
            Array.from({ length: n }, (_, i) => i),
          ) ||
          got.some((m) => m.text !== text)
        )
          return { problem: `messages ${JSON.stringify(got.map((m) => m.i))}`, pids: [] };
        return { pids: [...new Set(got.map((m) => m.pid))] };
      } finally {
        c.close();
      }
    },
    "grpc-bidi": async () => {
      const c = grpcClient(target);
      try {
        const call = c.bidi();
        const got = [];
        for (let i = 0; i < 3; i++) got.push(await call.send(`${text} #${i}`));
        const code = await call.end();
        const want = [0, 1, 2].map((i) => `${text} #${i}`);
        if (
          code !== 0 ||
          !same(
            got.map((m) => m.text),
            want,
          )
        )
          return { problem: `status ${code}, echoes ${JSON.stringify(got.map((m) => m.text))}`, pids: [] };
        return { pids: [...new Set(got.map((m) => m.pid))] };
      } finally {
        c.close();
      }
    },
  };
  const entries = await Promise.all(
    only.map(async (name) => {
      try {
        const r = await runs[name]();
        return [name, { result: r.problem ?? "ok", pids: r.pids }];
      } catch (err) {
        return [name, { result: `failed: ${err instanceof Error ? err.message : String(err)}`, pids: [] }];
      }
    }),
  );
  return Object.fromEntries(entries);
}
