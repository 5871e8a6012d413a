import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { listenRows, othersListening } from "./listeners.js";

const TABLE = [
  "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
  "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0 100 0 0 10 0",
  "   1: 0100007F:A1B2 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 4343 1 0 20 4 30 10 -1",
  "   2: 00000000:2383 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4444 1 0 100 0 0 10 0",
  "   3: garbage",
  "",
].join("\n");

describe("listenRows", () => {
  it("keeps the LISTEN rows (state 0A) with their port and inode, and skips the rest", () => {
    expect(listenRows(TABLE)).toEqual([
      { port: 8080, inode: "4242" },
      { port: 9091, inode: "4444" },
    ]);
    expect(listenRows("")).toEqual([]);
  });
});

describe("othersListening", () => {
  it("names another process's listener in this namespace (a pod's app, seen from its queue-proxy)", async () => {
    const child = spawn(process.execPath, [
      "-e",
      "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => console.log(s.address().port))",
    ]);
    try {
      const [line] = (await once(child.stdout, "data")) as [Buffer];
      expect(await othersListening()).toContain(Number(line.toString().trim()));
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("leaves out this process's own listeners", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    try {
      const others = await othersListening();
      expect(others).toBeDefined();
      expect(others).not.toContain(port);
    } finally {
      server.close();
    }
  });
});
