import { describe, expect, it } from "vitest";
import { ClientProtocolError, H1RequestParser } from "./h1-request-parser.js";
import { VCHAR } from "./h1-syntax.js";

interface Request {
  method: string;
  target: string;
  http10: boolean;
  rawHeaders: string[];
  keepAlive: boolean;
  expectContinue: boolean;
  upgrade: boolean;
  body: string;
  ended: boolean;
}

/** Parses `text` fed in `pieces`; returns the requests read and the bytes left after the last one ended. */
function parse(pieces: Buffer[], maxHeadBytes?: number): { requests: Request[]; rest: string } {
  const requests: Request[] = [];
  const p: H1RequestParser = new H1RequestParser(
    {
      head: () =>
        requests.push({
          method: p.method,
          target: p.target,
          http10: p.http10,
          rawHeaders: p.rawHeaders,
          keepAlive: p.keepAlive,
          expectContinue: p.expectContinue,
          upgrade: p.upgrade,
          body: "",
          ended: false,
        }),
      body: (chunk) => {
        (requests.at(-1) as Request).body += chunk.toString("latin1");
      },
      end: () => {
        (requests.at(-1) as Request).ended = true;
      },
    },
    maxHeadBytes,
  );
  let rest = "";
  for (const piece of pieces) {
    let data = Buffer.from(piece);
    while (data.length > 0) {
      if (!p.busy) p.start();
      const used = p.feed(data);
      data = data.subarray(used);
    }
  }
  if (p.busy && requests.at(-1)?.ended !== false) rest = "(a head was being read)";
  return { requests, rest };
}

/** The same bytes whole, one byte at a time, and in 5-byte pieces. */
function splits(text: string): Buffer[][] {
  const bytes = Buffer.from(text, "latin1");
  const fives: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 5) fives.push(bytes.subarray(i, i + 5));
  return [[bytes], [...bytes].map((b) => Buffer.from([b])), fives];
}

const rows: { name: string; text: string; want: Partial<Request>[] }[] = [
  {
    name: "a GET with fields trimmed of white space, obs-text kept",
    text: "GET /a?b=c HTTP/1.1\r\nHost: app\r\nX-Thing:  v \xe9 \t\r\n\r\n",
    want: [
      {
        method: "GET",
        target: "/a?b=c",
        http10: false,
        rawHeaders: ["Host", "app", "X-Thing", "v \xe9"],
        keepAlive: true,
        body: "",
        ended: true,
      },
    ],
  },
  {
    name: "a body by Content-Length",
    text: "POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 5\r\n\r\nhello",
    want: [{ method: "POST", body: "hello", ended: true }],
  },
  {
    name: "a chunked body with extensions and trailers (trailers dropped)",
    text: "PUT /x HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\nT: 1\r\n\r\n",
    want: [{ method: "PUT", body: "abc0123456789", ended: true }],
  },
  {
    name: "two pipelined requests, each whole",
    text: "GET /1 HTTP/1.1\r\nhost: a\r\n\r\nPOST /2 HTTP/1.1\r\nhost: a\r\ncontent-length: 2\r\n\r\nok",
    want: [
      { target: "/1", ended: true },
      { target: "/2", body: "ok", ended: true },
    ],
  },
  {
    name: "HTTP/1.0: no Host needed, keep-alive only when asked",
    text: "GET / HTTP/1.0\r\n\r\nGET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
    want: [
      { http10: true, keepAlive: false },
      { http10: true, keepAlive: true },
    ],
  },
  {
    name: "Connection: close on HTTP/1.1",
    text: "GET / HTTP/1.1\r\nhost: a\r\nconnection: foo, Close\r\n\r\n",
    want: [{ keepAlive: false }],
  },
  {
    name: "Expect: 100-continue only matters with a body",
    text: "POST / HTTP/1.1\r\nhost: a\r\nexpect: 100-Continue\r\ncontent-length: 1\r\n\r\nxGET / HTTP/1.1\r\nhost: a\r\nexpect: 100-continue\r\n\r\n",
    want: [
      { expectContinue: true, body: "x" },
      { expectContinue: false, body: "" },
    ],
  },
  {
    name: "an upgrade request's body is framed like any other (as llhttp does), before any switch",
    text: "GET /ws HTTP/1.1\r\nhost: a\r\nconnection: Upgrade\r\nupgrade: websocket\r\ncontent-length: 3\r\n\r\nabc",
    want: [{ upgrade: true, body: "abc", ended: true }],
  },
  {
    name: "Upgrade without the Connection token is a plain request",
    text: "GET / HTTP/1.1\r\nhost: a\r\nupgrade: websocket\r\n\r\n",
    want: [{ upgrade: false }],
  },
  {
    name: "chunk extensions as llhttp takes them: bare names, empty values, quoted strings with escapes",
    text: 'POST / HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n3;a;b=;c="x\\"y\tz"\r\nabc\r\n0\r\n\r\n',
    want: [{ body: "abc", ended: true }],
  },
  {
    name: "zero-padded chunk sizes, longer than the significant limit",
    text: "POST / HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n00000000000000003\r\nabc\r\n000\r\n\r\n",
    want: [{ body: "abc", ended: true }],
  },
  {
    name: "chunked in HTTP/1.0 (llhttp reads it)",
    text: "POST / HTTP/1.0\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    want: [{ body: "abc", ended: true }],
  },
  {
    name: "Content-Length after leading tabs, with trailing spaces",
    text: "POST / HTTP/1.1\r\nhost: a\r\ncontent-length:\t 2  \r\n\r\nhi",
    want: [{ body: "hi" }],
  },
];

describe("H1RequestParser: requests, split at every byte", () => {
  for (const row of rows) {
    it(row.name, () => {
      for (const pieces of splits(row.text)) {
        const { requests, rest } = parse(pieces);
        expect(rest).toBe("");
        expect(requests).toHaveLength(row.want.length);
        row.want.forEach((w, i) => {
          expect(requests[i]).toMatchObject(w);
        });
      }
    });
  }

  it("returns how far the request went, so a pipelined request waits unread", () => {
    const p = new H1RequestParser({ head: () => {}, body: () => {}, end: () => {} });
    p.start();
    const text = Buffer.from("GET /1 HTTP/1.1\r\nhost: a\r\n\r\nGET /2 HTTP/1.1\r\n");
    const used = p.feed(text);
    expect(text.subarray(used).toString()).toBe("GET /2 HTTP/1.1\r\n");
    expect(p.busy).toBe(false);
  });

  it("reads each request's own fields and target where they differ from the last one's by a byte", () => {
    const text = [
      "GET /a HTTP/1.1\r\nHost: app\r\nX-Id: 1\r\n\r\n",
      "GET /a HTTP/1.1\r\nHost: app\r\nX-Id: 1\r\n\r\n",
      "GET /b HTTP/1.1\r\nHost: apq\r\nX-Id: 2\r\n\r\n",
      "GET /b HTTP/1.1\r\nhost: apq\r\nX-ID: 2\r\nX-More: 3\r\n\r\n",
      "GET /bb HTTP/1.1\r\nX-ID: 2\r\nhost: apq\r\n\r\n",
    ].join("");
    for (const pieces of splits(text)) {
      const { requests } = parse(pieces);
      expect(requests.map((r) => [r.target, ...r.rawHeaders])).toEqual([
        ["/a", "Host", "app", "X-Id", "1"],
        ["/a", "Host", "app", "X-Id", "1"],
        ["/b", "Host", "apq", "X-Id", "2"],
        ["/b", "host", "apq", "X-ID", "2", "X-More", "3"],
        ["/bb", "X-ID", "2", "host", "apq"],
      ]);
    }
  });

  it("takes exactly the field-value bytes of VCHAR inside a value", () => {
    for (let b = 0; b < 256; b++) {
      const text = Buffer.concat([
        Buffer.from("GET / HTTP/1.1\r\nHost: a\r\nX-V: a", "latin1"),
        Buffer.from([b]),
        Buffer.from("b\r\n\r\n", "latin1"),
      ]);
      let accepted = true;
      try {
        parse([text]);
      } catch (err) {
        expect(err).toBeInstanceOf(ClientProtocolError);
        accepted = false;
      }
      expect([b, accepted]).toEqual([b, VCHAR[b] === 1]);
    }
  });

  // Heads are searched byte by byte up to 512 bytes, then by Buffer.indexOf: the end must be found on
  // either side of that line and across it, with a pipelined request behind it in the same read.
  it.each([400, 505, 506, 507, 508, 509, 510, 511, 512, 520, 3000])(
    "finds the end of a %i-byte head (blank line included), in one read",
    (at) => {
      const fixed = "GET / HTTP/1.1\r\nHost: a\r\nX-Pad: \r\n";
      const head = `GET / HTTP/1.1\r\nHost: a\r\nX-Pad: ${"p".repeat(at - fixed.length)}\r\n`;
      expect(head.length).toBe(at);
      const next = "GET /2 HTTP/1.1\r\nhost: a\r\n\r\n";
      const { requests, rest } = parse([Buffer.from(`${head}\r\n${next}`, "latin1")]);
      expect(rest).toBe("");
      expect(requests.map((r) => [r.target, r.rawHeaders.at(-1)?.length])).toEqual([
        ["/", at - fixed.length],
        ["/2", 1],
      ]);
    },
  );
});

const refusals: { name: string; text: string; status: number; message: RegExp }[] = [
  {
    name: "no request target",
    text: "GET HTTP/1.1\r\nhost: a\r\n\r\n",
    status: 400,
    message: /HTTP\/0\.9 is not supported/,
  },
  { name: "two spaces", text: "GET  / HTTP/1.1\r\nhost: a\r\n\r\n", status: 400, message: /not supported/ },
  {
    name: "Content-Length repeated with the same value (llhttp refuses it too)",
    text: "POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 2\r\ncontent-length: 2\r\n\r\nhi",
    status: 400,
    message: /content-length/,
  },
  {
    name: "an empty Transfer-Encoding after a Content-Length (llhttp refuses it; before one it is ignored)",
    text: "POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 0\r\ntransfer-encoding: \r\n\r\n",
    status: 400,
    message: /both Transfer-Encoding and Content-Length/,
  },
  {
    name: "Content-Length with a trailing tab",
    text: "POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 2\t\r\n\r\nhi",
    status: 400,
    message: /content-length/,
  },
  {
    name: "Transfer-Encoding `chunked` and a tab: another coding to llhttp, so not supported",
    text: "POST / HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\t\r\n\r\n0\r\n\r\n",
    status: 501,
    message: /unsupported transfer encoding/,
  },
  {
    name: "a chunk size followed by a space",
    text: "POST / HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n3 \r\nabc\r\n0\r\n\r\n",
    status: 400,
    message: /chunk size/,
  },
  {
    name: "a control byte in a chunk extension",
    text: "POST / HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n3;a=\x01\r\nabc\r\n0\r\n\r\n",
    status: 400,
    message: /chunk size/,
  },
  {
    name: "NUL in a quoted chunk extension",
    text: 'POST / HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n3;a="\x00"\r\nabc\r\n0\r\n\r\n',
    status: 400,
    message: /chunk size/,
  },
  {
    name: "a trailer line without a colon",
    text: "POST / HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nnot a field\r\n\r\n",
    status: 400,
    message: /trailer/,
  },
  {
    name: "an obs-fold trailer line",
    text: "POST / HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX: 1\r\n 2\r\n\r\n",
    status: 400,
    message: /trailer/,
  },
  {
    name: "a method llhttp does not know",
    text: "BREW / HTTP/1.1\r\nhost: a\r\n\r\n",
    status: 400,
    message: /unknown method/,
  },
  {
    name: "a method that is no token",
    text: "G(T / HTTP/1.1\r\nhost: a\r\n\r\n",
    status: 400,
    message: /request line|unknown method/,
  },
  {
    name: "a control byte in the target",
    text: "GET /\x01 HTTP/1.1\r\nhost: a\r\n\r\n",
    status: 400,
    message: /request line/,
  },
  { name: "not HTTP", text: "GET / FTP/1.1\r\nhost: a\r\n\r\n", status: 400, message: /request line/ },
  { name: "HTTP/1.2", text: "GET / HTTP/1.2\r\nhost: a\r\n\r\n", status: 505, message: /HTTP\/1\.2/ },
  { name: "CONNECT", text: "CONNECT a:443 HTTP/1.1\r\nhost: a\r\n\r\n", status: 405, message: /CONNECT/ },
  { name: "HTTP/1.1 without Host", text: "GET / HTTP/1.1\r\nx: y\r\n\r\n", status: 400, message: /Host/ },
  {
    name: "two Host fields",
    text: "GET / HTTP/1.1\r\nhost: a\r\nhost: b\r\n\r\n",
    status: 400,
    message: /Host/,
  },
  {
    name: "Transfer-Encoding and Content-Length together",
    text: "POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n",
    status: 400,
    message: /both/,
  },
  {
    name: "a coding other than chunked",
    text: "POST / HTTP/1.1\r\nhost: a\r\ntransfer-encoding: gzip\r\n\r\n",
    status: 501,
    message: /transfer encoding/,
  },
  {
    name: "Content-Length that is no number",
    text: "POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 1x\r\n\r\n",
    status: 400,
    message: /content-length/,
  },
  {
    name: "conflicting Content-Length",
    text: "POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n",
    status: 400,
    message: /content-length/,
  },
  {
    name: "a bare CR ending the request line",
    text: "GET / HTTP/1.1\rTransfer-Encoding: chunked\r\nhost: a\r\n\r\n",
    status: 400,
    message: /request line|bare CR/,
  },
  {
    name: "a chunk size line ending in a bare LF",
    text: "POST / HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n",
    status: 400,
    message: /CRLF/,
  },
  {
    name: "white space before a chunk size",
    text: "POST / HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n 3\r\nabc\r\n0\r\n\r\n",
    status: 400,
    message: /chunk size/,
  },
  {
    name: "more than 10,000 fields",
    text: `GET / HTTP/1.1\r\nhost: a\r\n${"x: 1\r\n".repeat(10_000)}\r\n`,
    status: 431,
    message: /10000 header fields/,
  },
  {
    name: "obs-fold",
    text: "GET / HTTP/1.1\r\nhost: a\r\nx: 1\r\n  2\r\n\r\n",
    status: 400,
    message: /header line/,
  },
  {
    name: "space before the colon",
    text: "GET / HTTP/1.1\r\nhost : a\r\n\r\n",
    status: 400,
    message: /header line/,
  },
  {
    name: "a bare LF in a value",
    text: "GET / HTTP/1.1\r\nhost: a\nx: b\r\n\r\n",
    status: 400,
    message: /header line|bare LF/,
  },
  {
    name: "an Expect other than 100-continue",
    text: "GET / HTTP/1.1\r\nhost: a\r\nexpect: magic\r\n\r\n",
    status: 417,
    message: /Expect/,
  },
  {
    name: "a bad chunk size",
    text: "POST / HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
    status: 400,
    message: /chunk size/,
  },
  {
    name: "chunk data longer than its size",
    text: "POST / HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n1\r\nab\r\n",
    status: 400,
    message: /longer/,
  },
];

describe("H1RequestParser: requests it refuses", () => {
  for (const row of refusals) {
    it(`${row.status}: ${row.name}`, () => {
      for (const pieces of splits(row.text)) {
        let caught: unknown;
        try {
          parse(pieces);
        } catch (err) {
          caught = err;
        }
        expect(caught).toBeInstanceOf(ClientProtocolError);
        expect((caught as ClientProtocolError).status).toBe(row.status);
        expect((caught as ClientProtocolError).message).toMatch(row.message);
      }
    });
  }

  it("431 for a head over the limit, whole or in pieces", () => {
    const big = `GET / HTTP/1.1\r\nhost: a\r\nx: ${"v".repeat(2000)}\r\n\r\n`;
    for (const pieces of [
      [Buffer.from(big)],
      [Buffer.from(big.slice(0, 1000)), Buffer.from(big.slice(1000))],
    ]) {
      expect(() => parse(pieces, 1024)).toThrow(expect.objectContaining({ status: 431 }));
    }
    expect(parse([Buffer.from(big)], 4096).requests).toHaveLength(1);
  });

  it("collects a head sent in 12,500 small pieces", () => {
    const head = `GET / HTTP/1.1\r\nhost: a\r\nx: ${"v".repeat(200_000)}\r\n\r\n`;
    const pieces: Buffer[] = [];
    for (let i = 0; i < head.length; i += 16) pieces.push(Buffer.from(head.slice(i, i + 16)));
    const { requests } = parse(pieces);
    expect(requests[0]?.rawHeaders[3]).toHaveLength(200_000);
  });
});
