import { describe, expect, it } from "vitest";
import { H1ResponseParser, MAX_HEAD_BYTES, parseKeepAliveTimeout } from "./h1-response-parser.js";

interface Seen {
  heads: { status: number; headers: string[] }[];
  body: string;
  ends: boolean[];
}

function parser(headRequest = false): { p: H1ResponseParser; seen: Seen } {
  const seen: Seen = { heads: [], body: "", ends: [] };
  const p = new H1ResponseParser({
    head: (status, fields) => seen.heads.push({ status, headers: [...fields.list] }),
    body: (chunk) => {
      seen.body += chunk.toString("latin1");
    },
    end: (reusable) => seen.ends.push(reusable),
  });
  p.start(headRequest);
  return { p, seen };
}

/** Feeds `text` whole, then byte by byte, then in 7-byte pieces: every split must give the same result. */
function eachSplit(text: string, headRequest: boolean, eof: boolean): Seen[] {
  const bytes = Buffer.from(text, "latin1");
  const splits: Buffer[][] = [[bytes], [...bytes].map((b) => Buffer.from([b]))];
  const sevens: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 7) sevens.push(bytes.subarray(i, i + 7));
  splits.push(sevens);
  return splits.map((pieces) => {
    const { p, seen } = parser(headRequest);
    for (const piece of pieces) p.feed(piece);
    if (eof) p.eof();
    return seen;
  });
}

const rows: {
  name: string;
  text: string;
  headRequest?: boolean;
  eof?: boolean;
  status: number;
  headers: string[];
  body: string;
  reusable: boolean;
}[] = [
  {
    name: "Content-Length body, keep-alive by default in HTTP/1.1",
    text: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello",
    status: 200,
    headers: ["Content-Type", "text/plain", "Content-Length", "5"],
    body: "hello",
    reusable: true,
  },
  {
    name: "the same Content-Length repeated is taken from an app (as Go's transport does)",
    text: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok",
    status: 200,
    headers: ["Content-Length", "2", "Content-Length", "2"],
    body: "ok",
    reusable: true,
  },
  {
    name: "Connection naming Content-Length does not drop it: stripping never touches framing",
    text: "HTTP/1.1 200 OK\r\nConnection: content-length, x-hop\r\nX-Hop: 1\r\nContent-Length: 2\r\n\r\nok",
    status: 200,
    headers: ["Content-Length", "2"],
    body: "ok",
    reusable: true,
  },
  {
    name: "chunked body with an extension and trailers: de-chunked, trailers dropped",
    text:
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n" +
      "5;name=value\r\nhello\r\n7\r\n, world\r\n0\r\nX-Sum: 12\r\n\r\n",
    status: 200,
    headers: [],
    body: "hello, world",
    reusable: true,
  },
  {
    name: "chunked and a Content-Length: chunked frames the body and the length is not passed on",
    text: "HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
    status: 200,
    headers: ["X-A", "1"],
    body: "hi",
    reusable: true,
  },
  {
    name: "no length and no chunking: the body runs to the end of the connection",
    text: "HTTP/1.1 200 OK\r\nX-A: 1\r\n\r\nstream until close",
    eof: true,
    status: 200,
    headers: ["X-A", "1"],
    body: "stream until close",
    reusable: false,
  },
  {
    name: "HEAD: the Content-Length describes a body that is not sent",
    text: "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n",
    headRequest: true,
    status: 200,
    headers: ["Content-Length", "1234"],
    body: "",
    reusable: true,
  },
  {
    name: "204 and 304 have no body",
    text: "HTTP/1.1 204 No Content\r\nX-B: 2\r\n\r\n",
    status: 204,
    headers: ["X-B", "2"],
    body: "",
    reusable: true,
  },
  {
    name: "interim 100 and 103 heads are skipped",
    text: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
    status: 201,
    headers: ["Content-Length", "2"],
    body: "ok",
    reusable: true,
  },
  {
    name: "Connection: close makes the connection single-use",
    text: "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
    status: 200,
    headers: ["Content-Length", "2"],
    body: "ok",
    reusable: false,
  },
  {
    name: "HTTP/1.0 closes unless it asks for keep-alive",
    text: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
    status: 200,
    headers: ["Content-Length", "2"],
    body: "ok",
    reusable: false,
  },
  {
    name: "HTTP/1.0 with Connection: keep-alive is reusable",
    text: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
    status: 200,
    headers: ["Content-Length", "2"],
    body: "ok",
    reusable: true,
  },
  {
    name: "hop-by-hop fields and those Connection names are dropped; repeats keep their order",
    text:
      "HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nConnection: keep-alive, X-Hop\r\nKeep-Alive: timeout=5\r\n" +
      "X-Hop: secret\r\nProxy-Authenticate: Basic\r\nUpgrade: h2c\r\nSet-Cookie: b=2\r\nContent-Length: 0\r\n\r\n",
    status: 200,
    headers: ["Set-Cookie", "a=1", "Set-Cookie", "b=2", "Content-Length", "0"],
    body: "",
    reusable: true,
  },
  {
    name: "a status line without a reason phrase, values trimmed of spaces and tabs",
    text: "HTTP/1.1 404\r\nX-Pad: \t padded \t\r\nContent-Length: 0\r\n\r\n",
    status: 404,
    headers: ["X-Pad", "padded", "Content-Length", "0"],
    body: "",
    reusable: true,
  },
  {
    name: "a coding other than chunked last: framed by the end of the connection",
    text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nraw-bytes",
    eof: true,
    status: 200,
    headers: [],
    body: "raw-bytes",
    reusable: false,
  },
];

describe("H1ResponseParser: framing, split at every byte", () => {
  for (const row of rows) {
    it(row.name, () => {
      for (const seen of eachSplit(row.text, row.headRequest ?? false, row.eof ?? false)) {
        expect(seen.heads).toEqual([{ status: row.status, headers: row.headers }]);
        expect(seen.body).toBe(row.body);
        expect(seen.ends).toEqual([row.reusable]);
      }
    });
  }

  it("parses the next response after start() on the same parser", () => {
    const { p, seen } = parser();
    p.feed(Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na"));
    p.start(false);
    p.feed(Buffer.from("HTTP/1.1 202 Accepted\r\nContent-Length: 1\r\n\r\nb"));
    expect(seen.heads.map((h) => h.status)).toEqual([200, 202]);
    expect(seen.body).toBe("ab");
    expect(seen.ends).toEqual([true, true]);
  });

  it("remembers the Keep-Alive timeout hint and whether any byte arrived", () => {
    const { p } = parser();
    expect(p.started).toBe(false);
    p.feed(Buffer.from("HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5, max=100\r\nContent-Length: 0\r\n\r\n"));
    expect(p.started).toBe(true);
    expect(p.keepAliveHintMs).toBe(5000);
    expect(p.busy).toBe(false);
  });
});

describe("H1ResponseParser: responses it refuses", () => {
  const bad: { name: string; text: string; eof?: boolean; error: RegExp }[] = [
    { name: "not HTTP/1.x", text: "HTTP/2 200\r\n\r\n", error: /bad status line/ },
    { name: "status not three digits", text: "HTTP/1.1 2x0 OK\r\n\r\n", error: /bad status/ },
    {
      name: "a header line without a colon",
      text: "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n",
      error: /bad header line/,
    },
    {
      name: "obsolete line folding",
      text: "HTTP/1.1 200 OK\r\nX-A: 1\r\n  folded\r\n\r\n",
      error: /bad header line/,
    },
    {
      name: "a space before the colon (not a token character)",
      text: "HTTP/1.1 200 OK\r\nX-A : 1\r\n\r\n",
      error: /bad header line/,
    },
    {
      name: "a control character in a value, which writeHead would refuse",
      text: "HTTP/1.1 200 OK\r\nX-A: a\u0001b\r\n\r\n",
      error: /bad header line/,
    },
    {
      name: "a bare CR inside the head",
      text: "HTTP/1.1 200 OK\r\nX-A: a\rb\r\n\r\n",
      error: /bad header line/,
    },
    {
      name: "two different Content-Length values",
      text: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
      error: /bad content-length/,
    },
    {
      name: "a non-numeric Content-Length",
      text: "HTTP/1.1 200 OK\r\nContent-Length: 1e3\r\n\r\n",
      error: /bad content-length/,
    },
    {
      name: "a bad chunk size",
      text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      error: /bad chunk size/,
    },
    {
      name: "chunk data longer than its size",
      text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n",
      error: /longer than its size/,
    },
    {
      name: "bytes after the end of the response",
      text: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab",
      error: /after the end/,
    },
    {
      name: "101 to a plain request",
      text: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n",
      error: /101/,
    },
    {
      name: "the connection ends inside a Content-Length body",
      text: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
      eof: true,
      error: /closed before the response ended/,
    },
    {
      name: "the connection ends inside the head",
      text: "HTTP/1.1 200 OK\r\nContent-Le",
      eof: true,
      error: /closed before the response ended/,
    },
  ];
  for (const row of bad) {
    it(row.name, () => {
      const { p } = parser();
      expect(() => {
        p.feed(Buffer.from(row.text, "latin1"));
        if (row.eof) p.eof();
      }).toThrow(row.error);
    });
  }

  it("a head larger than the limit, even when it arrives in pieces", () => {
    const { p } = parser();
    p.feed(Buffer.from("HTTP/1.1 200 OK\r\n"));
    const filler = Buffer.from(`X-Big: ${"a".repeat(1000)}\r\n`);
    expect(() => {
      for (let i = 0; i < MAX_HEAD_BYTES / 1000 + 2; i++) p.feed(filler);
    }).toThrow(/head too large/);
  });
});

describe("parseKeepAliveTimeout", () => {
  it.each([
    ["timeout=5", 5000],
    ["max=100, timeout=2", 2000],
    ["TIMEOUT = 7", 7000],
    ["max=5", 0],
    ["", 0],
    ["timeout=abc", 0],
  ])("%j -> %i ms", (value, ms) => {
    expect(parseKeepAliveTimeout(value)).toBe(ms);
  });
});

describe("upgrade mode (start(_, true))", () => {
  /** Feeds `text` in `size`-byte pieces; returns the switched head, the bytes left after it, and any head. */
  function run(text: string, size: number) {
    const out = { switched: "", rest: "", statuses: [] as number[], ended: false };
    const p = new H1ResponseParser({
      head: (status) => out.statuses.push(status),
      body: () => {},
      end: () => {
        out.ended = true;
      },
      switched: (h) => {
        out.switched = h.toString("latin1");
      },
    });
    p.start(false, true);
    const bytes = Buffer.from(text, "latin1");
    for (let at = 0; at < bytes.length; at += size) {
      const piece = bytes.subarray(at, at + size);
      if (p.switchedOver) out.rest += piece.toString("latin1");
      else out.rest += piece.subarray(p.feedUpgrade(piece)).toString("latin1");
    }
    return out;
  }

  it.each([1, 7, 1000])(
    "a 101 after interim 100 and 103, new-protocol bytes behind it (pieces of %i)",
    (size) => {
      const got = run(
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" +
          "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x81\x02hi",
        size,
      );
      expect(got).toEqual({
        switched: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade",
        rest: "\x81\x02hi",
        statuses: [],
        ended: false,
      });
    },
  );

  it("any other final answer is an ordinary response (no switch)", () => {
    const got = run("HTTP/1.1 426 Upgrade Required\r\nContent-Length: 2\r\n\r\nno", 1000);
    expect(got).toEqual({ switched: "", rest: "", statuses: [426], ended: true });
  });

  it("bytes after a refusal's end are an error, as in a plain exchange", () => {
    const p = new H1ResponseParser({ head: () => {}, body: () => {}, end: () => {} });
    p.start(false, true);
    expect(() =>
      p.feedUpgrade(Buffer.from("HTTP/1.1 400 Bad\r\nContent-Length: 0\r\n\r\nHTTP/1.1 101 X\r\n\r\n")),
    ).toThrow(/after the end/);
  });
});
