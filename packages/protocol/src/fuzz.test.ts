/**
 * Property tests (fast-check) of the parsers that read input from outside: `Forwarded`, address ranges,
 * the protobuf Stat decoder and revision identity. Each property states what must hold for any input;
 * a failure prints the shrunk counterexample.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAddress, parseAddressRange } from "./address-range.js";
import { formatForwarded, parseForwarded } from "./forwarded-list.js";
import { rewriteForwardingHeaders } from "./forwarding-headers.js";
import {
  parseDecoratorOperation,
  parseRevisionKey,
  revisionFromHost,
  revisionKey,
  stripPort,
} from "./revision-id.js";
import type { Stat, WireStatMessage } from "./stat.js";
import {
  decodeStat,
  decodeWireStatMessage,
  decodeWireStatMessages,
  encodeStat,
  encodeWireStatMessages,
} from "./stat-codec.js";

const RUNS = { numRuns: 2000 };
// Generous: on a loaded 2-core machine a few thousand runs take seconds.
const SLOW = 60_000;
const TCHAR = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".split("");
const token = fc.string({ unit: fc.constantFrom(...TCHAR), minLength: 1, maxLength: 12 });
// What a quoted-string can carry: HTAB, SP, VCHAR and obs-text.
const quotable = fc.string({
  unit: fc
    .oneof(
      fc.constantFrom("\t", '"', "\\"),
      fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)),
    )
    .filter((c) => c !== "\x7f"),
  maxLength: 16,
});
const element = fc
  .uniqueArray(
    fc.tuple(
      token.map((t) => t.toLowerCase()),
      quotable,
    ),
    { minLength: 1, maxLength: 4, selector: ([k]) => k },
  )
  .map((pairs) => Object.fromEntries(pairs));

describe("Forwarded (RFC 7239) properties", () => {
  it(
    "parse never throws on any string",
    () => {
      fc.assert(
        fc.property(fc.string({ maxLength: 60 }), (s) => {
          parseForwarded(s);
        }),
        RUNS,
      );
    },
    SLOW,
  );

  it(
    "parse(format(elements)) gives the elements back",
    () => {
      fc.assert(
        fc.property(fc.array(element, { minLength: 1, maxLength: 4 }), (els) => {
          expect(parseForwarded(formatForwarded(els))).toEqual(els);
        }),
        RUNS,
      );
    },
    SLOW,
  );

  it(
    "rewriting for an untrusted peer never keeps a client value and always parses",
    () => {
      const header = fc.string({
        unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
        maxLength: 30,
      });
      fc.assert(
        fc.property(header, header, header, header, (xff, xfp, xfh, fwd) => {
          const h = new Headers({
            "x-forwarded-for": `${xff}x`,
            "x-forwarded-proto": xfp,
            "x-forwarded-host": xfh,
            forwarded: fwd,
          });
          const out = rewriteForwardingHeaders(h, {
            peer: "192.0.2.1",
            trusted: false,
            proto: "http",
            host: "a.example",
          });
          expect(out.get("x-forwarded-for")).toBe("192.0.2.1");
          expect(parseForwarded(out.get("forwarded") ?? "")).toEqual([
            { for: "192.0.2.1", host: "a.example", proto: "http" },
          ]);
        }),
        RUNS,
      );
    },
    SLOW,
  );

  it(
    "rewriting for a trusted peer keeps the chain, appends the peer, and Forwarded always parses",
    () => {
      const node = fc.oneof(fc.ipV4(), fc.ipV6());
      fc.assert(
        fc.property(
          fc.array(node, { maxLength: 4 }),
          fc.string({ maxLength: 30 }),
          node,
          (chain, fwd, peer) => {
            const h = new Headers({ forwarded: fwd.replace(/[^\x20-\x7e]/g, "") });
            if (chain.length > 0) h.set("x-forwarded-for", chain.join(", "));
            const out = rewriteForwardingHeaders(h, {
              peer,
              trusted: true,
              proto: "https",
              host: "a.example",
            });
            expect(out.get("x-forwarded-for")).toBe([...chain, peer].join(", "));
            const parsed = parseForwarded(out.get("forwarded") ?? "");
            expect(parsed).toBeDefined();
            expect(parsed?.at(-1)?.for).toBe(peer.includes(":") ? `[${peer}]` : peer);
          },
        ),
        RUNS,
      );
    },
    SLOW,
  );
});

describe("address range properties", () => {
  it(
    "never throws; every IPv4 and IPv6 literal parses, to 4 or 16 bytes",
    () => {
      fc.assert(
        fc.property(fc.string({ maxLength: 50 }), (s) => {
          parseAddressRange(s);
          parseAddress(s);
        }),
        RUNS,
      );
      fc.assert(
        fc.property(fc.ipV4(), fc.integer({ min: 0, max: 32 }), (ip, p) => {
          expect(parseAddress(ip)?.length).toBe(4);
          expect(parseAddressRange(`${ip}/${p}`).ok).toBe(true);
        }),
        RUNS,
      );
      fc.assert(
        fc.property(fc.ipV6(), (ip) => {
          const bytes = parseAddress(ip);
          expect(bytes, ip).toBeDefined();
          expect([4, 16]).toContain(bytes?.length);
        }),
        RUNS,
      );
    },
    SLOW,
  );
});

const stat: fc.Arbitrary<Stat> = fc.record({
  podName: fc.string({ unit: "grapheme", maxLength: 20 }),
  averageConcurrentRequests: fc.double(),
  averageProxiedConcurrentRequests: fc.double(),
  requestCount: fc.double(),
  proxiedRequestCount: fc.double(),
  processUptime: fc.double(),
  timestamp: fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
});

describe("Stat protobuf codec properties", () => {
  it(
    "decoders never throw on arbitrary bytes",
    () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
          for (const r of [decodeStat(bytes), decodeWireStatMessage(bytes), decodeWireStatMessages(bytes)]) {
            if (!r.ok) expect(r.issue.message).not.toBe("");
          }
        }),
        { numRuns: 5000 },
      );
    },
    SLOW,
  );

  it(
    "decodeStat(encodeStat(x)) = x",
    () => {
      fc.assert(
        fc.property(stat, (s) => {
          const r = decodeStat(encodeStat(s));
          expect(r.ok).toBe(true);
          if (r.ok) expect(r.value).toEqual(s);
        }),
        RUNS,
      );
    },
    SLOW,
  );

  it(
    "decodeWireStatMessages(encode(xs)) = xs",
    () => {
      const msg: fc.Arbitrary<WireStatMessage> = fc.record(
        {
          namespace: fc.string({ unit: "grapheme", maxLength: 10 }),
          name: fc.string({ unit: "grapheme", maxLength: 10 }),
          stat,
        },
        { requiredKeys: ["namespace", "name"] },
      );
      fc.assert(
        fc.property(fc.array(msg, { maxLength: 5 }), (xs) => {
          const r = decodeWireStatMessages(encodeWireStatMessages(xs));
          expect(r.ok).toBe(true);
          if (r.ok) expect(r.value).toEqual(xs);
        }),
        RUNS,
      );
    },
    SLOW,
  );
});

describe("revision identity properties", () => {
  const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);

  it(
    "parsers never throw on any string",
    () => {
      fc.assert(
        fc.property(fc.string({ maxLength: 60 }), (s) => {
          parseRevisionKey(s);
          revisionFromHost(s);
          parseDecoratorOperation(s);
          stripPort(s);
        }),
        RUNS,
      );
    },
    SLOW,
  );

  it(
    "parseRevisionKey(revisionKey(id)) = id, and host/decorator forms name the same revision",
    () => {
      fc.assert(
        fc.property(label, label, fc.integer({ min: 1, max: 65535 }), (name, namespace, port) => {
          expect(parseRevisionKey(revisionKey({ namespace, name }))).toEqual({ namespace, name });
          expect(revisionFromHost(`${name}.${namespace}.svc.cluster.local:${port}`)).toEqual({
            name,
            namespace,
          });
          expect(parseDecoratorOperation(`${name}.${namespace}.svc.cluster.local:${port}/*`)).toMatchObject({
            name,
            namespace,
            port,
          });
        }),
        RUNS,
      );
    },
    SLOW,
  );
});
