import { describe, expect, it } from "vitest";
import { probeUrl } from "./http-probe.js";
import type { HttpGetAction } from "./types.js";

describe("probeUrl", () => {
  it.each([
    {
      name: "leading slash",
      action: { path: "/health?foo=bar", port: 80 },
      want: "http://127.0.0.1:80/health?foo=bar",
    },
    { name: "no leading slash", action: { path: "health", port: 80 }, want: "http://127.0.0.1:80/health" },
    { name: "no path", action: { port: "8080" }, want: "http://127.0.0.1:8080/" },
    { name: "scheme lowercased", action: { scheme: "HTTPS", host: "h", port: 443 }, want: "https://h:443/" },
    { name: "IPv6 host", action: { host: "::1", port: 80 }, want: "http://[::1]:80/" },
  ] as { name: string; action: HttpGetAction; want: string }[])("$name", ({ action, want }) => {
    expect(probeUrl(action)).toBe(want);
  });

  it("throws a ProbeError for a named port (the prober turns it into a failed attempt)", () => {
    expect(() => probeUrl({ port: "http" })).toThrow(expect.objectContaining({ code: "ERR_PROBE_BAD_PORT" }));
  });
});
