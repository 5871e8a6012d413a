import { describe, expect, it } from "vitest";
import { AddressRanges, parseAddress, parseAddressRange } from "./address-range.js";

describe("address ranges (trustedProxies)", () => {
  it.each([
    ["exact IPv4", ["127.0.0.1"], "127.0.0.1", true],
    ["other IPv4", ["127.0.0.1"], "127.0.0.2", false],
    ["/8", ["10.0.0.0/8"], "10.200.3.4", true],
    ["/8 outside", ["10.0.0.0/8"], "11.0.0.1", false],
    ["/22 edge", ["192.168.4.0/22"], "192.168.7.255", true],
    ["/22 past the edge", ["192.168.4.0/22"], "192.168.8.0", false],
    ["/0 trusts every IPv4", ["0.0.0.0/0"], "8.8.8.8", true],
    ["IPv6 loopback", ["::1"], "::1", true],
    ["IPv6 /8", ["fd00::/8"], "fd12:3456::1", true],
    ["IPv6 vs IPv4 range", ["10.0.0.0/8"], "fd00::1", false],
    ["IPv4-mapped peer against an IPv4 range", ["127.0.0.0/8"], "::ffff:127.0.0.1", true],
    ["mapped range written in IPv6", ["::ffff:10.0.0.0/104"], "10.9.9.9", true],
    ["bracketed peer", ["::1"], "[::1]", true],
    ["nobody trusted", [], "127.0.0.1", false],
    ["garbage peer", ["0.0.0.0/0"], "not-an-ip", false],
  ] as const)("%s", (_n, ranges, peer, want) => {
    expect(AddressRanges.parse(ranges).has(peer)).toBe(want);
  });

  it.each([
    ["1.2.3", "is not an IP address"],
    ["256.1.1.1", "is not an IP address"],
    ["01.2.3.4", "is not an IP address"],
    ["10.0.0.0/33", "prefix length must be 0-32"],
    ["::1/129", "prefix length must be 0-128"],
    ["1::2::3", "is not an IP address"],
    ["10.0.0.0/x", "prefix length"],
  ])("rejects %j", (text, fragment) => {
    const r = parseAddressRange(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(fragment);
  });

  it("parses IPv6 forms to 16 bytes", () => {
    expect(Array.from(parseAddress("2001:db8::1") ?? [])).toEqual([
      0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
    ]);
    expect(parseAddress("fe80::1%eth0")?.length).toBe(16);
  });
});
