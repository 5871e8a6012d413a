/**
 * A fast-check grammar of HTTP/1 request byte sequences, biased towards framing: one to three pipelined
 * requests whose request lines, fields, lengths, chunk lines and trailers are drawn from valid forms and
 * near-misses, then a few byte-level mutations (CR, LF, NUL, spaces, tabs, digits) at random places.
 */
import fc from "fast-check";

const pick = <T>(...values: T[]) => fc.constantFrom(...values);
/** Mostly `usual`, sometimes one of `odd`. */
const mostly = <T>(usual: T, ...odd: T[]) =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: fc.constantFrom(...odd) });

const method = mostly("POST", "GET", "PUT", "HEAD", "OPTIONS", "DELETE", "get", "BREW", "M-SEARCH", "QUERY");
const target = mostly(
  "/p",
  "/",
  "*",
  "http://a/abs?x=1",
  "/a?b=c#f",
  "//x",
  "/\x01",
  "/\xe9",
  "/a b",
  "",
  "ap",
  "a:b",
  "x://y{z",
  "x://y?z#w",
  "x://[::1]:80/p",
);
const version = mostly("HTTP/1.1", "HTTP/1.0", "HTTP/1.2", "http/1.1", "HTTP/1.1 ", "HTTP/2.0");
const sp = mostly(" ", "  ", "\t", "");
const eol = mostly("\r\n", "\n", "\r", "\r\r\n");

const lengthValue = (n: number) =>
  mostly(
    String(n),
    `0${n}`,
    ` ${n}`,
    `${n} `,
    `\t${n}`,
    `${n}\t`,
    `+${n}`,
    `${n}, ${n}`,
    `${n + 1}`,
    `${n}x`,
    "",
  );
const teValue = mostly(
  "chunked",
  "Chunked",
  "CHUNKED",
  "chunked ",
  "chunked\t",
  " chunked",
  "\x0bchunked",
  "xchunked",
  "chunked , x",
  "gzip, chunked",
  "chunked, gzip",
  "identity",
  ",chunked",
  "chunked,",
  "",
);
const connectionValue = pick(
  "close",
  "keep-alive",
  "upgrade",
  "content-length",
  "transfer-encoding",
  "host",
  "x-hop",
  "close, x-hop",
  "Keep-Alive, Upgrade",
);
const fieldName = mostly(
  "X-A",
  "X-A ",
  " X-A",
  "",
  "X A",
  "X\x00A",
  "Host",
  "Content-Length",
  "Transfer-Encoding",
);
const fieldValue = mostly("1", "", " v ", "a\x00b", "a\rb", "a\x7fb", "caf\xe9", "a\x01b", "\tv");
const extension = mostly(
  "",
  ";a=b",
  ";a",
  ";a=",
  ';a="b c"',
  ';a="b\\"c"',
  ";a=\x01",
  ";a\x00",
  " ;a",
  ";",
  ";a =b",
  ';a="b"c',
);

/** One chunk: its size line (as written, maybe wrong) and its data. */
const chunk = fc
  .record({
    data: fc.string({ unit: pick("a", "b", "\r", "\n", "0"), minLength: 1, maxLength: 12 }),
    pad: mostly("", "0", "000", "0000000000000000"),
    upper: fc.boolean(),
    space: mostly("", " ", "\t"),
    ext: extension,
    off: mostly(0, 1, -1),
    end: eol,
  })
  .map(({ data, pad, upper, space, ext, off, end }) => {
    const hex = (data.length + off).toString(16);
    return `${pad}${upper ? hex.toUpperCase() : hex}${space}${ext}\r\n${data}${end}`;
  });
const trailers = mostly(
  "",
  "X-T: 1\r\n",
  "X-T : 1\r\n",
  "bad\r\n",
  "X-T: 1\n",
  "X-T: 1\r\n 2\r\n",
  "Content-Length: 1\r\n",
);
const lastChunk = fc
  .tuple(mostly("0", "000", "0 ", "0;x"), trailers, eol)
  .map(([zero, t, end]) => `${zero}\r\n${t}${end}`);

/** The body framing a request declares and the bytes it then carries. */
const framing = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ fields: [] as string[], body: "" }) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.string({ unit: pick("x", "\r", "\n", "G"), maxLength: 10 }), fc.nat(2), fc.boolean())
      .chain(([body, extra, dup]) =>
        lengthValue(body.length).map((v) => ({
          fields: dup ? [`Content-Length: ${v}`, `Content-Length: ${v}`] : [`Content-Length: ${v}`],
          body: body + "y".repeat(extra === 2 ? 1 : 0),
        })),
      ),
  },
  {
    weight: 5,
    arbitrary: fc
      .tuple(teValue, fc.array(chunk, { maxLength: 3 }), lastChunk, fc.boolean(), fc.boolean())
      .map(([te, chunks, last, alsoLength, twice]) => ({
        fields: [
          `Transfer-Encoding: ${te}`,
          ...(twice ? ["Transfer-Encoding: chunked"] : []),
          ...(alsoLength ? ["Content-Length: 3"] : []),
        ],
        body: chunks.join("") + last,
      })),
  },
);

const extraField = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fieldName, fieldValue).map(([n, v]) => `${n}: ${v}`) },
  { weight: 3, arbitrary: connectionValue.map((v) => `Connection: ${v}`) },
  { weight: 1, arbitrary: pick("Upgrade: x", "Expect: 100-continue", "X-Hop: 1", "X-A: 1\r\n folded") },
);

/** One request as text (latin1). */
const request = fc
  .record({
    method,
    sp1: sp,
    target,
    sp2: sp,
    version,
    host: mostly(["Host: a"], [], ["Host: a", "Host: b"], ["Host:"]),
    // An upgrade request (the recording app never answers 101): what follows it on the connection is
    // compared like any request, so a target that splices after a refusal disagrees.
    upgrade: mostly(
      [] as string[],
      ["Connection: Upgrade", "Upgrade: websocket"],
      ["Connection: keep-alive, Upgrade", "Upgrade: x"],
    ),
    fields: fc.array(extraField, { maxLength: 3 }),
    framing,
    eol,
    end: eol,
  })
  .map((r) => {
    const lines = [...r.host, ...r.upgrade, ...r.framing.fields, ...r.fields];
    return `${r.method}${r.sp1}${r.target}${r.sp2}${r.version}\r\n${lines.map((l) => `${l}${r.eol}`).join("")}${r.end}${r.framing.body}`;
  });

const INTERESTING = ["\r", "\n", "\x00", " ", "\t", ":", ";", "0", "a", "\x0b", "\x7f", "\xff", "\r\n"];

/** A byte-level mutation: replace, insert or delete at a fraction of the length. */
const mutation = fc.record({
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  kind: pick("replace", "insert", "delete"),
  text: fc.constantFrom(...INTERESTING),
});

function mutate(text: string, m: { at: number; kind: string; text: string }): string {
  const i = Math.min(text.length - 1, Math.floor(m.at * text.length));
  if (i < 0) return text;
  if (m.kind === "insert") return text.slice(0, i) + m.text + text.slice(i);
  if (m.kind === "delete") return text.slice(0, i) + text.slice(i + 1);
  return text.slice(0, i) + m.text + text.slice(i + 1);
}

/** Request byte sequences: one to three requests, then no mutation (half the time) or up to three. */
export const requestBytes: fc.Arbitrary<Buffer> = fc
  .tuple(
    fc.array(request, { minLength: 1, maxLength: 3 }),
    fc.oneof(fc.constant([]), fc.array(mutation, { minLength: 1, maxLength: 3 })),
  )
  .map(([requests, mutations]) => Buffer.from(mutations.reduce(mutate, requests.join("")), "latin1"));
