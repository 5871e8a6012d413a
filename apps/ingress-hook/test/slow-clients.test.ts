import { slowClientScenario } from "@thaw/bench-kit/slow-clients";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HookService, startIngressHook } from "../src/node/service.js";
import { httpGet } from "./support/http-get.js";

// The hook service with headersTimeoutMs 1500: slowloris heads get 408 and are closed at the limit, silent
// connections are closed at it, idle keep-alives after 1.5 s (the smaller of the limit and 65 s), while a
// normal caller is answered meanwhile.
// 3 s like the gateway's: a normal request must finish inside it, and a loaded CI can stall one for over 1.5 s.
const HEADERS_MS = 3000;
let hook: HookService;

beforeAll(async () => {
  hook = await startIngressHook({
    port: 0,
    activatorUrl: "http://127.0.0.1:9",
    services: [],
    watch: false,
    headersTimeoutMs: HEADERS_MS,
  });
});
afterAll(async () => {
  await hook?.close();
});

describe("hook service: slow and idle clients", () => {
  it("closes slowloris, silent and idle sockets at the head timeout and answers others meanwhile", async () => {
    const port = hook.port;
    const r = await slowClientScenario(port, {
      label: "hook",
      headersMs: HEADERS_MS,
      idlePath: "/healthz",
      normal: async () => {
        expect((await httpGet(port, "a", "/healthz")).status).toBe(200);
      },
    });
    expect(r.problems).toEqual([]);
  }, 60_000);
});

describe("hook service: idle keep-alive", () => {
  it("keeps an idle connection 65 s by default, above nginx's 60 s upstream keepalive_timeout", async () => {
    const plain = await startIngressHook({
      port: 0,
      activatorUrl: "http://127.0.0.1:9",
      services: [],
      watch: false,
    });
    try {
      const res = await fetch(`http://127.0.0.1:${plain.port}/healthz`);
      await res.arrayBuffer();
      // Node's server says how long it keeps the connection idle; proxies and clients read it.
      expect(res.headers.get("keep-alive")).toBe("timeout=65");
    } finally {
      await plain.close();
    }
  });
});
