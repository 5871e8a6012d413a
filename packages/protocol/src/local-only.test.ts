import { describe, expect, it } from "vitest";
import { isLoopbackHost, localOnlyRefusal } from "./local-only.js";

describe("isLoopbackHost", () => {
  it.each([
    ["localhost", true],
    ["localhost:8080", true],
    ["127.0.0.1:18091", true],
    ["127.1.2.3", true],
    ["[::1]:80", true],
    ["[::1]", true],
    ["hello.localhost", false],
    ["evil.example", false],
    ["127.0.0.1.evil.example", false],
    ["127.0.0.300", false],
    ["", false],
  ])("%s -> %s", (host, ok) => expect(isLoopbackHost(host)).toBe(ok));
});

describe("localOnlyRefusal (no-token mode)", () => {
  it("without a Host header the URL's authority is the host", () => {
    expect(
      localOnlyRefusal({ headers: new Headers(), url: "http://127.0.0.1:8080/v1/status" }),
    ).toBeUndefined();
    expect(localOnlyRefusal({ headers: new Headers(), url: "http://a/v1/status" })?.status).toBe(403);
  });

  it.each([
    { name: "curl on loopback", h: { host: "127.0.0.1:8080" }, status: undefined },
    {
      name: "same-origin page",
      h: { host: "localhost:8080", origin: "http://localhost:8080", "sec-fetch-site": "same-origin" },
      status: undefined,
    },
    {
      name: "typed in the address bar",
      h: { host: "localhost:8080", "sec-fetch-site": "none" },
      status: undefined,
    },
    { name: "another Host (DNS rebinding)", h: { host: "evil.example:8080" }, status: 403 },
    {
      name: "cross-site browser POST",
      h: { host: "127.0.0.1:8080", "sec-fetch-site": "cross-site" },
      status: 403,
    },
    {
      name: "same-site browser POST",
      h: { host: "127.0.0.1:8080", "sec-fetch-site": "same-site" },
      status: 403,
    },
    { name: "another origin", h: { host: "127.0.0.1:8080", origin: "https://evil.example" }, status: 403 },
    {
      name: "another port's origin",
      h: { host: "127.0.0.1:8080", origin: "http://127.0.0.1:9999" },
      status: 403,
    },
  ])("$name", async ({ h, status }) => {
    const res = localOnlyRefusal({
      headers: new Headers(h as Record<string, string>),
      url: "http://ignored/",
    });
    expect(res?.status).toBe(status);
    if (res) expect(await res.json()).toMatchObject({ error: { code: "ERR_FORBIDDEN" } });
  });
});
