/**
 * The header field names the HTTP/1.x parsers act on, recognised in the head's bytes without making a
 * string or lower-casing one: most fields of most messages are none of these, and those that are cost a
 * length switch and a byte comparison.
 */

/** Not a name the parsers act on. */
export const OTHER = 0;
export const CONTENT_LENGTH = 1;
export const TRANSFER_ENCODING = 2;
export const CONNECTION = 3;
export const KEEP_ALIVE = 4;
export const EXPECT = 5;
export const UPGRADE = 6;
export const HOST = 7;
export const DATE = 8;
export const PROXY_CONNECTION = 9;
export const PROXY_AUTHENTICATE = 10;
export const PROXY_AUTHORIZATION = 11;
export const TE = 12;
export const TRAILER = 13;

/** Ids of the hop-by-hop fields (`HOP_BY_HOP_HEADERS` of @thaw/protocol): bit `1 << id` is set. */
export const HOP_BY_HOP_IDS =
  (1 << CONNECTION) |
  (1 << KEEP_ALIVE) |
  (1 << PROXY_CONNECTION) |
  (1 << PROXY_AUTHENTICATE) |
  (1 << PROXY_AUTHORIZATION) |
  (1 << TE) |
  (1 << TRAILER) |
  (1 << TRANSFER_ENCODING) |
  (1 << UPGRADE);

/**
 * `buf[at, at + lower.length)` spells `lower` (letters and `-`) in any case. Exact for the token and
 * field-value characters the parser has checked: among them, `| 0x20` maps only the two cases of a
 * letter onto a letter, and only `-` itself onto `-` (CR, the other byte that would, is never among them).
 */
export function sameName(buf: Buffer, at: number, lower: string): boolean {
  for (let i = 0; i < lower.length; i++) {
    if (((buf[at + i] as number) | 0x20) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** The id of the token `buf[from, to)` as a field name, `OTHER` when the parsers do not act on it. */
export function fieldNameId(buf: Buffer, from: number, to: number): number {
  const c = (buf[from] as number) | 0x20;
  switch (to - from) {
    case 2:
      return c === 0x74 && sameName(buf, from, "te") ? TE : OTHER;
    case 4:
      if (c === 0x68) return sameName(buf, from, "host") ? HOST : OTHER;
      return c === 0x64 && sameName(buf, from, "date") ? DATE : OTHER;
    case 6:
      return c === 0x65 && sameName(buf, from, "expect") ? EXPECT : OTHER;
    case 7:
      if (c === 0x75) return sameName(buf, from, "upgrade") ? UPGRADE : OTHER;
      return c === 0x74 && sameName(buf, from, "trailer") ? TRAILER : OTHER;
    case 10:
      if (c === 0x63) return sameName(buf, from, "connection") ? CONNECTION : OTHER;
      return c === 0x6b && sameName(buf, from, "keep-alive") ? KEEP_ALIVE : OTHER;
    case 14:
      return c === 0x63 && sameName(buf, from, "content-length") ? CONTENT_LENGTH : OTHER;
    case 16:
      return c === 0x70 && sameName(buf, from, "proxy-connection") ? PROXY_CONNECTION : OTHER;
    case 17:
      return c === 0x74 && sameName(buf, from, "transfer-encoding") ? TRANSFER_ENCODING : OTHER;
    case 18:
      return c === 0x70 && sameName(buf, from, "proxy-authenticate") ? PROXY_AUTHENTICATE : OTHER;
    case 19:
      return c === 0x70 && sameName(buf, from, "proxy-authorization") ? PROXY_AUTHORIZATION : OTHER;
    default:
      return OTHER;
  }
}

/** `buf[from, to)` holds exactly the latin1 text `s`. */
export function sameText(buf: Buffer, from: number, to: number, s: string): boolean {
  if (to - from !== s.length) return false;
  for (let i = 0; i < s.length; i++) if (buf[from + i] !== s.charCodeAt(i)) return false;
  return true;
}
