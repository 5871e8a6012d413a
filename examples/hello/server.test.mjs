// The sample app really starts late and reports its pod name.
import { spawn } from "node:child_process";
import { connect, createServer } from "node:net";
import { expect, test } from "vitest";

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

test("listens only after STARTUP_DELAY_MS and answers with its pod name", async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [new URL("./server.mjs", import.meta.url).pathname], {
    env: { ...process.env, PORT: String(port), STARTUP_DELAY_MS: "300", SERVING_POD: "pod-a" },
    stdio: "ignore",
  });
  try {
    const t0 = Date.now();
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow(); // must not listen before the delay
    let body;
    for (let i = 0; i < 100 && body === undefined; i++) {
      try {
        body = await (await fetch(`http://127.0.0.1:${port}/`)).text();
      } catch {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(body).toMatch(/^hello from pod-a /);
  } finally {
    child.kill("SIGTERM");
  }
});

test("refuses a malformed STARTUP_DELAY_MS, naming it", async () => {
  const child = spawn(process.execPath, [new URL("./server.mjs", import.meta.url).pathname], {
    env: { ...process.env, STARTUP_DELAY_MS: "soon" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const code = await new Promise((r) => child.on("exit", r));
  expect(code).toBe(1);
  expect(err).toMatch(/STARTUP_DELAY_MS must be a whole number/);
});

/** Starts the app on a free port with no start-up delay; resolves once it answers. */
async function started(env = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, [new URL("./server.mjs", import.meta.url).pathname], {
    env: { ...process.env, PORT: String(port), STARTUP_DELAY_MS: "0", SERVING_POD: "pod-s", ...env },
    stdio: "ignore",
  });
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/healthz`);
      return { port, child };
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  child.kill("SIGKILL");
  throw new Error("the app did not listen within 4 s");
}

test("GET /sse sends n events gapMs apart, then ends; a bad n is refused naming it", async () => {
  const { port, child } = await started();
  try {
    const t0 = Date.now();
    const res = await fetch(`http://127.0.0.1:${port}/sse?n=4&gapMs=50`);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    const text = await res.text();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    expect(text.split("\n\n").filter(Boolean)).toEqual(
      [0, 1, 2, 3].map((i) => `id: ${i}\ndata: {"pid":"pod-s","i":${i}}`),
    );
    const bad = await fetch(`http://127.0.0.1:${port}/sse?n=many`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/^n must be a whole number in \[1, 1000\], got "many"/);
  } finally {
    child.kill("SIGKILL");
  }
});

/** A client frame: FIN + `opcode`, masked with a fixed key as clients must. */
function clientFrame(opcode, data) {
  const payload = Buffer.from(data);
  const key = Buffer.from([1, 2, 3, 4]);
  const masked = Buffer.from(payload.map((b, i) => b ^ key[i % 4]));
  return Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | payload.length]), key, masked]);
}

test("a websocket echoes each message and answers the close", async () => {
  const { port, child } = await started();
  const socket = connect(port, "127.0.0.1");
  try {
    let got = Buffer.alloc(0);
    const until = async (n) => {
      for (let i = 0; i < 200 && got.length < n; i++) await new Promise((r) => setTimeout(r, 10));
      return got.toString("latin1");
    };
    socket.on("data", (c) => (got = Buffer.concat([got, c])));
    socket.write(
      "GET /ws HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\n" +
        "sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n",
    );
    const head = await until(20);
    expect(head).toMatch(/^HTTP\/1\.1 101 /);
    expect(head).toMatch(/sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=\r\n/); // RFC 6455's example
    const headLength = head.indexOf("\r\n\r\n") + 4;
    got = got.subarray(headLength);
    socket.write(clientFrame(0x1, "one"));
    await until(5);
    expect([...got.subarray(0, 5)]).toEqual([0x81, 3, ...Buffer.from("one")]);
    got = Buffer.alloc(0);
    socket.write(clientFrame(0x8, [0x03, 0xe8]));
    await until(2);
    expect(got[0]).toBe(0x88);
  } finally {
    socket.destroy();
    child.kill("SIGKILL");
  }
});

test("logs its first request once: when its connection came and when its answer went", async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [new URL("./server.mjs", import.meta.url).pathname], {
    env: { ...process.env, PORT: String(port), STARTUP_DELAY_MS: "0", SERVING_POD: "pod-f" },
    stdio: ["ignore", "pipe", "ignore"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const line = (re) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const m = out.match(re);
        if (m) return resolve(m);
        if (child.exitCode !== null) return reject(new Error(`the app exited: ${out}`));
        child.stdout.once("data", check);
      };
      check();
    });
  try {
    const listening = await line(/listening on \S+ after (\d+) ms/);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toMatch(/^hello from pod-f /);
    const first = await line(
      /first request answered after (\d+) ms \(its connection accepted after (\d+) ms\)/,
    );
    const [after, answered, accepted] = [listening[1], first[1], first[2]].map(Number);
    expect(accepted).toBeGreaterThanOrEqual(after);
    expect(answered).toBeGreaterThanOrEqual(accepted);
    // The later requests add no line.
    await fetch(`http://127.0.0.1:${port}/`).then((r) => r.text());
    expect(out.match(/first request answered/g)).toHaveLength(1);
  } finally {
    child.kill("SIGTERM");
  }
});
