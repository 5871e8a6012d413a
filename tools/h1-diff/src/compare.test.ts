import { describe, expect, it } from "vitest";
import { compare, type HeaderPolicy, type Side } from "./compare.js";
import type { Message } from "./message.js";

const POLICY: HeaderPolicy = {
  ignored: ["connection"],
  dropsConnectionNamed: true,
  addedWhenAbsent: ["host"],
  upgradesVersion: true,
};

const msg = (over: Partial<Message> = {}): Message => ({
  method: "POST",
  target: "/p",
  version: "1.1",
  headers: [
    ["Host", "a"],
    ["Content-Length", "5"],
  ],
  body: "hello",
  complete: true,
  ...over,
});
const side = (over: Partial<Side> = {}): Side => ({
  messages: [msg()],
  rejections: [],
  answers: [{ status: 200, body: "" }],
  closed: false,
  ...over,
});
const never = () => false;
const upgrade = msg({
  method: "GET",
  target: "/ws",
  headers: [
    ["Host", "a"],
    ["Connection", "Upgrade"],
    ["Upgrade", "websocket"],
  ],
  body: "",
});
const next = msg({ method: "GET", target: "/next", headers: [["Host", "a"]], body: "" });
const afterUpgrade = side({
  messages: [upgrade, next],
  answers: [
    { status: 200, body: "" },
    { status: 200, body: "" },
  ],
});

describe("compare", () => {
  const rows: { name: string; ref: Side; target: Side; outcome: string; known?: () => boolean }[] = [
    { name: "the same message", ref: side(), target: side(), outcome: "same" },
    {
      name: "a refused upgrade answered, then the connection closed: nothing after it passed on",
      ref: afterUpgrade,
      target: side({ messages: [upgrade], closed: true }),
      outcome: "closed-after-upgrade",
    },
    {
      name: "a refused upgrade, then the next request as llhttp reads it",
      ref: afterUpgrade,
      target: afterUpgrade,
      outcome: "same",
    },
    {
      name: "a refused upgrade, then the next request passed on raw (without the target's fields)",
      ref: afterUpgrade,
      target: side({
        messages: [upgrade, msg({ method: "GET", target: "/next", headers: [["Host", "evil"]], body: "" })],
      }),
      outcome: "disagree",
    },
    {
      name: "an answering target: a refused upgrade answered, then closed",
      ref: afterUpgrade,
      target: side({ messages: null, closed: true }),
      outcome: "closed-after-upgrade",
    },
    {
      name: "an answering target that reads nothing after a refused upgrade",
      ref: afterUpgrade,
      target: side({ messages: null }),
      outcome: "stopped-after-upgrade",
    },
    {
      name: "an answering target that answered 101 and closed is no refusal",
      ref: afterUpgrade,
      target: side({ messages: null, answers: [{ status: 101, body: "" }], closed: true }),
      outcome: "disagree",
    },
    {
      name: "a framing field the target dropped (the smuggling shape)",
      ref: side(),
      target: side({
        messages: [msg({ headers: [["Host", "a"]], body: "" }), msg({ method: "GET", body: "" })],
      }),
      outcome: "disagree",
    },
    {
      name: "a field named in Connection may go, a framing field may not",
      ref: side({
        messages: [
          msg({
            headers: [
              ["Host", "a"],
              ["Connection", "x-hop, content-length"],
              ["X-Hop", "1"],
              ["Content-Length", "5"],
            ],
          }),
        ],
      }),
      target: side(),
      outcome: "same",
    },
    {
      name: "a refusal llhttp shares, answered before the close",
      ref: side({
        messages: [],
        rejections: [{ code: "HPE_X", reason: "" }],
        answers: [{ status: 400, body: "" }],
        closed: true,
      }),
      target: side({ messages: [], answers: [{ status: 400, body: "bad" }], closed: true }),
      outcome: "same",
    },
    {
      name: "a silent close",
      ref: side({
        messages: [],
        rejections: [{ code: "HPE_X", reason: "" }],
        answers: [{ status: 400, body: "" }],
        closed: true,
      }),
      target: side({ messages: [], answers: [], closed: true }),
      outcome: "disagree",
    },
    {
      name: "a refusal of what llhttp accepts: stricter only when documented",
      ref: side(),
      target: side({ messages: [], answers: [{ status: 501, body: "no" }], closed: true }),
      outcome: "disagree",
    },
    {
      name: "the same, documented",
      ref: side(),
      target: side({ messages: [], answers: [{ status: 501, body: "no" }], closed: true }),
      outcome: "stricter",
      known: () => true,
    },
    {
      name: "answers only: one answer per message",
      ref: side(),
      target: side({ messages: null }),
      outcome: "same",
    },
    {
      name: "answers only: an extra answer",
      ref: side(),
      target: side({
        messages: null,
        answers: [
          { status: 200, body: "" },
          { status: 200, body: "" },
        ],
      }),
      outcome: "disagree",
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(compare(row.ref, row.target, POLICY, row.known ?? never).outcome).toBe(row.outcome);
    });
  }
});
