/**
 * The character classes and the small grammars of HTTP/1.x framing as llhttp reads them: field
 * characters, Content-Length values, chunk-size lines with their extensions, and trailer lines.
 */

/** A decimal digit. */
export function isDigit(b: number | undefined): boolean {
  return b !== undefined && b >= 0x30 && b <= 0x39;
}

/**
 * Where `byte` first occurs in `buf[from, to)`, -1 if it does not. For the few bytes of a start line a
 * loop costs less than `Buffer.indexOf`, which crosses into C++ for every search.
 */
export function byteIndex(buf: Buffer, byte: number, from: number, to: number): number {
  for (let i = from; i < to; i++) if (buf[i] === byte) return i;
  return -1;
}

/** RFC 9110 token characters (methods, field names): 1 = allowed. */
export const TCHAR = new Uint8Array(256);
for (let b = 0x21; b < 0x7f; b++) if (!'"(),/:;<=>?@[\\]{}'.includes(String.fromCharCode(b))) TCHAR[b] = 1;
/** Field value characters llhttp accepts: HTAB, SP to `~`, and obs-text (no DEL, no other controls). */
export const VCHAR = new Uint8Array(256);
VCHAR[0x09] = 1;
for (let b = 0x20; b < 0x7f; b++) VCHAR[b] = 1;
for (let b = 0x80; b < 0x100; b++) VCHAR[b] = 1;
/** Quoted-string text and quoted-pair characters: VCHAR without the quote itself being special. */
const QDTEXT = VCHAR;
const HEX = new Uint8Array(256);
for (const c of "0123456789abcdefABCDEF") HEX[c.charCodeAt(0)] = 1;

/** A number too large for the proxy, though llhttp would take it (refused as "not supported"). */
export const TOO_LONG = -2;

/** Content-Length's value in `buf[from, to)` (leading whitespace already skipped), -1 if malformed. */
export function lengthValue(buf: Buffer, from: number, to: number): number {
  let end = from;
  while (end < to && isDigit(buf[end])) end++;
  if (end === from) return -1;
  for (let i = end; i < to; i++) if (buf[i] !== 0x20) return -1;
  let first = from;
  while (first < end - 1 && buf[first] === 0x30) first++;
  if (end - first > 15) return TOO_LONG;
  // Fifteen digits stay below 2^53, so adding them up is exact (and makes no string per message).
  let n = 0;
  for (let i = first; i < end; i++) n = n * 10 + ((buf[i] as number) - 0x30);
  return n;
}

/**
 * A chunk-size line as llhttp reads it: hex digits, then `;name[=token|quoted-string]` extensions with
 * no whitespace anywhere. -1 if malformed.
 */
export function chunkSize(line: string): number {
  let i = 0;
  while (i < line.length && HEX[line.charCodeAt(i)] === 1) i++;
  if (i === 0) return -1;
  const digits = line.slice(0, i).replace(/^0+(?=.)/, "");
  while (i < line.length) {
    if (line.charCodeAt(i) !== 0x3b) return -1;
    const name = ++i;
    while (i < line.length && TCHAR[line.charCodeAt(i)] === 1) i++;
    if (i === name) return -1;
    if (i === line.length || line.charCodeAt(i) === 0x3b) continue;
    if (line.charCodeAt(i++) !== 0x3d) return -1;
    if (line.charCodeAt(i) === 0x22) {
      i = quotedEnd(line, i + 1);
      if (i < 0) return -1;
    } else while (i < line.length && TCHAR[line.charCodeAt(i)] === 1) i++;
  }
  // Sizes beyond 2^48 are refused as unsupported (llhttp takes up to 2^64), so the count stays exact.
  if (digits.length > 12) return TOO_LONG;
  return Number.parseInt(digits, 16);
}

/** Where a quoted string whose text starts at `i` ends (after its closing quote), -1 if malformed. */
function quotedEnd(line: string, i: number): number {
  while (i < line.length) {
    const c = line.charCodeAt(i++);
    if (c === 0x22) return i;
    if (c === 0x5c) {
      if (i === line.length || QDTEXT[line.charCodeAt(i)] !== 1) return -1;
      i++;
    } else if (QDTEXT[c] !== 1) return -1;
  }
  return -1;
}

/** Checks one trailer field line as llhttp does; framing fields there are refused. */
export function checkTrailer(line: string, error: (message: string) => Error): void {
  const colon = line.indexOf(":");
  if (colon <= 0) throw error("bad trailer line");
  for (let i = 0; i < colon; i++) if (TCHAR[line.charCodeAt(i)] !== 1) throw error("bad trailer line");
  for (let i = colon + 1; i < line.length; i++) {
    if (VCHAR[line.charCodeAt(i)] !== 1) throw error("bad trailer line");
  }
  const name = line.slice(0, colon).toLowerCase();
  if (name === "content-length" || name === "transfer-encoding") throw error(`${name} in trailers`);
}
