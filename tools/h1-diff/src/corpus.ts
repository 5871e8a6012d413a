/**
 * Named rows of request smuggling classics and framing edge cases. Each row is raw bytes built around a
 * host name (targets route by Host), sent unchanged on one connection.
 */

/** One corpus row. */
export interface CorpusRow {
  name: string;
  bytes(host: string): Buffer;
}

const b = (text: string): Buffer => Buffer.from(text, "latin1");

/** A request head: the request line, `Host`, the given field lines, the blank line. */
function head(line: string, host: string, ...fields: string[]): string {
  return `${line}\r\nHost: ${host}\r\n${fields.map((f) => `${f}\r\n`).join("")}\r\n`;
}

const post = (host: string, ...fields: string[]) => head("POST /p HTTP/1.1", host, ...fields);
const getReq = (host: string, path = "/next", ...fields: string[]) =>
  head(`GET ${path} HTTP/1.1`, host, ...fields);
const chunked = (host: string, body: string, ...fields: string[]) =>
  post(host, "Transfer-Encoding: chunked", ...fields) + body;

const row = (name: string, make: (host: string) => string): CorpusRow => ({ name, bytes: (h) => b(make(h)) });

/** The corpus every target runs. */
export const CORPUS: readonly CorpusRow[] = [
  row(
    "issue 16: Connection: content-length smuggles a second request",
    (h) =>
      `POST /innocent HTTP/1.1\r\nHost: ${h}\r\nContent-Length: 35\r\nConnection: content-length\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: ${h}\r\n\r\n`,
  ),
  row(
    "CL.TE: Content-Length then Transfer-Encoding",
    (h) => post(h, "Content-Length: 6", "Transfer-Encoding: chunked") + `0\r\n\r\nG${getReq(h)}`,
  ),
  row(
    "TE.CL: Transfer-Encoding then Content-Length",
    (h) =>
      post(h, "Transfer-Encoding: chunked", "Content-Length: 4") + `5c\r\nGPOST / HTTP/1.1\r\n\r\n0\r\n\r\n`,
  ),
  row(
    "TE.TE: chunked, then a second Transfer-Encoding field",
    (h) => post(h, "Transfer-Encoding: chunked", "Transfer-Encoding: identity") + "5\r\nhello\r\n0\r\n\r\n",
  ),
  row(
    "TE.TE: two chunked fields",
    (h) => post(h, "Transfer-Encoding: chunked", "Transfer-Encoding: chunked") + "5\r\nhello\r\n0\r\n\r\n",
  ),
  row(
    "duplicate Content-Length, same value",
    (h) => `${post(h, "Content-Length: 5", "Content-Length: 5")}hello`,
  ),
  row("conflicting Content-Length", (h) => `${post(h, "Content-Length: 5", "Content-Length: 6")}hello!`),
  row("Content-Length list `5, 5`", (h) => `${post(h, "Content-Length: 5, 5")}hello`),
  row("Content-Length with a sign", (h) => `${post(h, "Content-Length: +5")}hello`),
  row("Content-Length with tabs around the value", (h) => `${post(h, "Content-Length:\t5\t")}hello`),
  row("Content-Length with leading zeros", (h) => `${post(h, "Content-Length: 005")}hello${getReq(h)}`),
  row("Content-Length empty", (h) => `${post(h, "Content-Length:")}${getReq(h)}`),
  row("Content-Length 0 then a pipelined request", (h) => `${post(h, "Content-Length: 0")}${getReq(h)}`),
  row("Content-Length too large for a number", (h) => `${post(h, "Content-Length: 99999999999999999999")}x`),
  row("TE `chunked , x`", (h) => `${post(h, "Transfer-Encoding: chunked , x")}5\r\nhello\r\n0\r\n\r\n`),
  row("TE `xchunked`", (h) => `${post(h, "Transfer-Encoding: xchunked")}5\r\nhello\r\n0\r\n\r\n`),
  row(
    "TE `CHUNKED` (case)",
    (h) => `${post(h, "Transfer-Encoding: CHUNKED")}5\r\nhello\r\n0\r\n\r\n${getReq(h)}`,
  ),
  row(
    "TE with a tab before the value",
    (h) => `${post(h, "Transfer-Encoding:\tchunked")}5\r\nhello\r\n0\r\n\r\n`,
  ),
  row(
    "TE with a vertical tab before the value",
    (h) => `${post(h, "Transfer-Encoding:\x0bchunked")}5\r\nhello\r\n0\r\n\r\n`,
  ),
  row("TE `gzip, chunked`", (h) => `${post(h, "Transfer-Encoding: gzip, chunked")}5\r\nhello\r\n0\r\n\r\n`),
  row("TE `chunked, gzip` (not final chunked)", (h) => `${post(h, "Transfer-Encoding: chunked, gzip")}hello`),
  row("TE identity", (h) => `${post(h, "Transfer-Encoding: identity")}hello`),
  row(
    "TE in HTTP/1.0",
    (h) => `${head("POST /p HTTP/1.0", h, "Transfer-Encoding: chunked")}5\r\nhello\r\n0\r\n\r\n`,
  ),
  row("obs-fold in an ordinary field", (h) => `${getReq(h, "/", "X-A: one", " two")}`),
  row(
    "obs-fold on Transfer-Encoding",
    (h) => `${post(h, "Transfer-Encoding: x", " chunked")}5\r\nhello\r\n0\r\n\r\n`,
  ),
  row("bare CR in a field value", (h) => getReq(h, "/", "X-A: a\rb")),
  row("bare LF ending a field line", (h) => `GET / HTTP/1.1\r\nHost: ${h}\nX-A: a\r\n\r\n`),
  row("bare LF ending the head", (h) => `GET / HTTP/1.1\r\nHost: ${h}\r\n\n${getReq(h)}`),
  row("bare LF after a chunk size", (h) => chunked(h, "5\nhello\r\n0\r\n\r\n")),
  row("bare LF after chunk data", (h) => chunked(h, "5\r\nhello\n0\r\n\r\n")),
  row("chunk size of 17 hex digits (overflow)", (h) => chunked(h, "10000000000000005\r\nhello\r\n0\r\n\r\n")),
  row("chunk size of 16 f's", (h) => chunked(h, "ffffffffffffffff\r\nhello\r\n0\r\n\r\n")),
  row("chunk size in upper-case hex", (h) => chunked(h, "A\r\n0123456789\r\n0\r\n\r\n")),
  row("chunk size with a 0x prefix", (h) => chunked(h, "0x5\r\nhello\r\n0\r\n\r\n")),
  row("chunk size followed by a space", (h) => chunked(h, "5 \r\nhello\r\n0\r\n\r\n")),
  row("chunk size, space, extension", (h) => chunked(h, "5 ;a=b\r\nhello\r\n0\r\n\r\n")),
  row("chunk extension", (h) => chunked(h, `5;a=b\r\nhello\r\n0;last\r\n\r\n${getReq(h)}`)),
  row("chunk extension without a value", (h) => chunked(h, "5;ext\r\nhello\r\n0\r\n\r\n")),
  row("chunk extension, quoted value", (h) => chunked(h, '5;a="b c"\r\nhello\r\n0\r\n\r\n')),
  row("chunk extension with a control byte", (h) => chunked(h, "5;a=\x01b\r\nhello\r\n0\r\n\r\n")),
  row("chunk extension with NUL", (h) => chunked(h, "5;a\x00\r\nhello\r\n0\r\n\r\n")),
  row("chunk extension with a bare CR", (h) => chunked(h, "5;a\rb\r\nhello\r\n0\r\n\r\n")),
  row("zero-padded chunk size", (h) => chunked(h, `0005\r\nhello\r\n0\r\n\r\n${getReq(h)}`)),
  row("zero-padded last chunk", (h) => chunked(h, `5\r\nhello\r\n000\r\n\r\n${getReq(h)}`)),
  row("chunk data longer than its size", (h) => chunked(h, "3\r\nhello\r\n0\r\n\r\n")),
  row("empty chunk size line", (h) => chunked(h, "\r\nhello\r\n0\r\n\r\n")),
  row("trailers", (h) => chunked(h, `5\r\nhello\r\n0\r\nX-T: 1\r\nX-U: 2\r\n\r\n${getReq(h)}`)),
  row("trailer without a colon", (h) => chunked(h, `5\r\nhello\r\n0\r\nnot a field\r\n\r\n${getReq(h)}`)),
  row("trailer with a space before the colon", (h) => chunked(h, "5\r\nhello\r\n0\r\nX-T : 1\r\n\r\n")),
  row("trailer with a bare LF", (h) => chunked(h, `5\r\nhello\r\n0\r\nX-T: 1\n\r\n${getReq(h)}`)),
  row("trailer obs-fold", (h) => chunked(h, `5\r\nhello\r\n0\r\nX-T: 1\r\n 2\r\n\r\n${getReq(h)}`)),
  row(
    "Connection: content-length",
    (h) => `${post(h, "Content-Length: 5", "Connection: content-length")}hello`,
  ),
  row(
    "Connection: transfer-encoding",
    (h) =>
      `${post(h, "Transfer-Encoding: chunked", "Connection: transfer-encoding")}5\r\nhello\r\n0\r\n\r\n${getReq(h)}`,
  ),
  row("Connection: host", (h) => getReq(h, "/", "Connection: host")),
  row("Connection names an ordinary field", (h) =>
    getReq(h, "/", "X-Drop: 1", "X-Keep: 2", "Connection: x-drop"),
  ),
  row("Connection: close, then a pipelined request", (h) => getReq(h, "/", "Connection: close") + getReq(h)),
  row(
    "upgrade with a chunked body",
    (h) =>
      `${post(h, "Connection: upgrade", "Upgrade: x", "Transfer-Encoding: chunked")}5\r\nhello\r\n0\r\n\r\n`,
  ),
  row(
    "upgrade with a length",
    (h) => `${post(h, "Connection: upgrade", "Upgrade: x", "Content-Length: 5")}hello`,
  ),
  row(
    "upgrade answered without 101, then a pipelined request",
    (h) => head("GET /ws HTTP/1.1", h, "Connection: Upgrade", "Upgrade: websocket") + getReq(h),
  ),
  row(
    "upgrade with a length, then a pipelined request",
    (h) => `${post(h, "Connection: upgrade", "Upgrade: x", "Content-Length: 5")}hello${getReq(h)}`,
  ),
  row(
    "upgrade with a chunked body, then a pipelined request",
    (h) =>
      `${post(h, "Connection: upgrade", "Upgrade: x", "Transfer-Encoding: chunked")}5\r\nhello\r\n0\r\n\r\n${getReq(h)}`,
  ),
  row(
    "two refused upgrades, then a pipelined request",
    (h) =>
      head("GET /ws1 HTTP/1.1", h, "Connection: Upgrade", "Upgrade: websocket") +
      head("GET /ws2 HTTP/1.1", h, "Connection: Upgrade", "Upgrade: websocket") +
      getReq(h),
  ),
  row(
    "Upgrade without the Connection token, then a pipelined request",
    (h) => head("GET /ws HTTP/1.1", h, "Upgrade: websocket") + getReq(h),
  ),
  row(
    "pipelining: length, chunked, none",
    (h) => `${post(h, "Content-Length: 3")}abc${chunked(h, "2\r\nde\r\n0\r\n\r\n")}${getReq(h)}`,
  ),
  row(
    "pipelining: a body that looks like a request",
    (h) => `${post(h, `Content-Length: ${getReq(h).length}`)}${getReq(h, "/inside")}${getReq(h)}`,
  ),
  row("pipelining after an incomplete body", (h) => `${post(h, "Content-Length: 50")}short${getReq(h)}`),
  row(
    "HTTP/1.0 keep-alive, two requests",
    (h) =>
      head("GET /a HTTP/1.0", h, "Connection: keep-alive") +
      head("GET /b HTTP/1.0", h, "Connection: keep-alive"),
  ),
  row(
    "HTTP/1.0 without keep-alive: the second request is not read",
    (h) => head("GET /a HTTP/1.0", h) + head("GET /b HTTP/1.0", h),
  ),
  row("HTTP/1.0 without Host", () => "GET /a HTTP/1.0\r\n\r\n"),
  row("HTTP/1.0 with a body", (h) => `${head("POST /a HTTP/1.0", h, "Content-Length: 5")}hello`),
  row("absolute-form target", (h) => head(`GET http://${h}/abs?q=1 HTTP/1.1`, h)),
  row("asterisk-form OPTIONS", (h) => head("OPTIONS * HTTP/1.1", h)),
  row("request target without a leading slash", (h) => head("GET ap HTTP/1.1", h) + getReq(h)),
  row("absolute-form with a brace in the authority", (h) => head("GET http://a{b/ HTTP/1.1", h)),
  row("whitespace before the colon", (h) => `${post(h, "Content-Length : 5")}hello`),
  row("whitespace before the colon of an ordinary field", (h) => getReq(h, "/", "X-A : 1")),
  row("empty field name", (h) => getReq(h, "/", ": x")),
  row("NUL in a field value", (h) => getReq(h, "/", "X-A: a\x00b")),
  row("DEL in a field value", (h) => getReq(h, "/", "X-A: a\x7fb")),
  row("obs-text in a field value", (h) => getReq(h, "/", "X-A: caf\xe9")),
  row("space inside a field name", (h) => getReq(h, "/", "X A: 1")),
  row("field line starting with a space (first line)", (h) => `GET / HTTP/1.1\r\n Host: ${h}\r\n\r\n`),
  row("two spaces in the request line", (h) => `GET  / HTTP/1.1\r\nHost: ${h}\r\n\r\n`),
  row("tab in the request line", (h) => `GET\t/ HTTP/1.1\r\nHost: ${h}\r\n\r\n`),
  row("lower-case method", (h) => head("get / HTTP/1.1", h)),
  row("unknown method", (h) => head("BREW / HTTP/1.1", h)),
  row("HTTP/1.2", (h) => head("GET / HTTP/1.2", h)),
  row("missing Host in HTTP/1.1", () => "GET / HTTP/1.1\r\n\r\n"),
  row("two Host fields", (h) => getReq(h, "/", `Host: ${h}`)),
  row(
    "Expect: 100-continue with a body",
    (h) => `${post(h, "Expect: 100-continue", "Content-Length: 5")}hello`,
  ),
  row("empty lines before the request", (h) => `\r\n\r\n${getReq(h)}`),
  row("a fragment of a request only", (h) => `GET / HTTP/1.1\r\nHost: ${h}\r\n`),
];
