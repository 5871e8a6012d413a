// The sample app really starts late and reports its pod name.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
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
