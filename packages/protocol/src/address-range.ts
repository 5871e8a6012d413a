/**
 * IP addresses and CIDR ranges (`10.0.0.0/8`, `::1`, `fd00::/8`) for the trusted-proxy setting, parsed
 * without any runtime's socket API. IPv4-mapped IPv6 (`::ffff:10.1.2.3`, what a dual-stack listener
 * reports) is treated as the IPv4 address.
 */

/** One parsed range: 4 or 16 bytes and a prefix length. */
export interface AddressRange {
  readonly bytes: Uint8Array;
  readonly prefix: number;
}

function parseV4(s: string): Uint8Array | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i] as string;
    if (!/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > 255) return undefined;
    out[i] = Number(p);
  }
  return out;
}

function parseV6(s: string): Uint8Array | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const groups = (h: string): number[] | undefined => {
    if (h === "") return [];
    const out: number[] = [];
    const items = h.split(":");
    for (let i = 0; i < items.length; i++) {
      const g = items[i] as string;
      if (i === items.length - 1 && g.includes(".")) {
        const v4 = parseV4(g);
        if (!v4) return undefined;
        out.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number));
      } else if (/^[0-9a-fA-F]{1,4}$/.test(g)) out.push(Number.parseInt(g, 16));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0] as string);
  const tail = halves.length === 2 ? groups(halves[1] as string) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...new Array<number>(missing).fill(0), ...tail];
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

/** `::ffff:a.b.c.d` as its 4 IPv4 bytes; any other address unchanged. */
function unmapped(bytes: Uint8Array): Uint8Array {
  if (bytes.length !== 16) return bytes;
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return bytes;
  if (bytes[10] !== 0xff || bytes[11] !== 0xff) return bytes;
  return bytes.slice(12);
}

/** The bytes of an IPv4 or IPv6 literal (brackets and an IPv6 zone allowed), or undefined. */
export function parseAddress(text: string): Uint8Array | undefined {
  let s = text.trim();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone !== -1) s = s.slice(0, zone);
  const bytes = s.includes(":") ? parseV6(s) : parseV4(s);
  return bytes ? unmapped(bytes) : undefined;
}

/** Parses `addr` or `addr/prefix`; an error text a person can act on otherwise. */
export function parseAddressRange(
  text: string,
): { ok: true; value: AddressRange } | { ok: false; error: string } {
  const slash = text.indexOf("/");
  const addr = slash === -1 ? text : text.slice(0, slash);
  const mappedV6 = addr.includes(":");
  const bytes = parseAddress(addr);
  if (!bytes)
    return {
      ok: false,
      error: `${JSON.stringify(text)} is not an IP address or CIDR range (e.g. 10.0.0.0/8, ::1)`,
    };
  const bits = bytes.length * 8;
  if (slash === -1) return { ok: true, value: { bytes, prefix: bits } };
  const raw = text.slice(slash + 1);
  let prefix = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
  // A prefix written against the IPv6 form of a mapped IPv4 address counts its 96 leading bits.
  if (mappedV6 && bytes.length === 4) prefix -= 96;
  if (!(prefix >= 0 && prefix <= bits)) {
    return {
      ok: false,
      error: `${JSON.stringify(text)}: the prefix length must be 0-${mappedV6 && bytes.length === 4 ? 128 : bits}`,
    };
  }
  return { ok: true, value: { bytes, prefix } };
}

/** True when `addr` (bytes) lies in `range`. */
function inRange(addr: Uint8Array, range: AddressRange): boolean {
  if (addr.length !== range.bytes.length) return false;
  const full = range.prefix >> 3;
  for (let i = 0; i < full; i++) if (addr[i] !== range.bytes[i]) return false;
  const rest = range.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((addr[full] as number) & mask) === ((range.bytes[full] as number) & mask);
}

/** A set of ranges; `has(address)` says whether a peer address belongs to one of them. Empty = nobody. */
export class AddressRanges {
  readonly #ranges: readonly AddressRange[];

  constructor(ranges: readonly AddressRange[] = []) {
    this.#ranges = ranges;
  }

  /** Builds the set from texts already validated (throws on a bad one: a programmer error). */
  static parse(texts: readonly string[]): AddressRanges {
    return new AddressRanges(
      texts.map((t) => {
        const r = parseAddressRange(t);
        if (!r.ok) throw new Error(r.error);
        return r.value;
      }),
    );
  }

  /** Number of ranges. */
  get size(): number {
    return this.#ranges.length;
  }

  /** True when `address` parses and lies in one of the ranges. */
  has(address: string | undefined): boolean {
    if (address === undefined || this.#ranges.length === 0) return false;
    const bytes = parseAddress(address);
    return bytes !== undefined && this.#ranges.some((r) => inRange(bytes, r));
  }
}
