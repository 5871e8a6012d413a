import { describe, expect, it } from "vitest";
import { rewriteForwardingHeaders } from "./forwarding-headers.js";

const spoofed = {
  "x-forwarded-for": "6.6.6.6",
  "x-forwarded-proto": "https",
  "x-forwarded-host": "bank.example",
  forwarded: "for=6.6.6.6",
};

describe("rewriteForwardingHeaders", () => {
  const rows: {
    name: string;
    in: Record<string, string>;
    peer: string | undefined;
    trusted: boolean;
    want: Record<string, string | null>;
  }[] = [
    {
      name: "untrusted client: every value replaced by what the gateway saw",
      in: spoofed,
      peer: "192.0.2.7",
      trusted: false,
      want: {
        "x-forwarded-for": "192.0.2.7",
        "x-forwarded-proto": "http",
        "x-forwarded-host": "app.example",
        forwarded: "for=192.0.2.7;host=app.example;proto=http",
      },
    },
    {
      name: "trusted proxy: chain kept, peer appended, its Forwarded extended",
      in: { ...spoofed, "x-forwarded-for": "198.51.100.1, 10.0.0.2" },
      peer: "10.0.0.3",
      trusted: true,
      want: {
        "x-forwarded-for": "198.51.100.1, 10.0.0.2, 10.0.0.3",
        "x-forwarded-proto": "https",
        "x-forwarded-host": "bank.example",
        forwarded: "for=6.6.6.6, for=10.0.0.3",
      },
    },
    {
      name: "trusted proxy with a malformed Forwarded: rebuilt from X-Forwarded-*",
      in: { "x-forwarded-for": "198.51.100.1", forwarded: "for" },
      peer: "::1",
      trusted: true,
      want: {
        "x-forwarded-for": "198.51.100.1, ::1",
        forwarded: 'for=198.51.100.1;host=app.example;proto=http, for="[::1]"',
      },
    },
    {
      name: "host with a port is quoted in Forwarded",
      in: { host: "app.example:8080" },
      peer: "127.0.0.1",
      trusted: false,
      want: { forwarded: 'for=127.0.0.1;host="app.example:8080";proto=http' },
    },
  ];
  it.each(rows)("$name", (row) => {
    const out = rewriteForwardingHeaders(new Headers(row.in), {
      peer: row.peer,
      trusted: row.trusted,
      proto: "http",
      host: row.in.host ?? "app.example",
    });
    for (const [k, v] of Object.entries(row.want)) expect(out.get(k), k).toBe(v);
  });
});
