import { HOP_BY_HOP_HEADERS } from "@thaw/protocol";
import { describe, expect, it } from "vitest";
import {
  CONNECTION,
  CONTENT_LENGTH,
  DATE,
  EXPECT,
  fieldNameId,
  HOP_BY_HOP_IDS,
  HOST,
  KEEP_ALIVE,
  OTHER,
  TRANSFER_ENCODING,
  UPGRADE,
} from "./h1-field-names.js";

const idOf = (name: string) => fieldNameId(Buffer.from(name, "latin1"), 0, name.length);
const hopByHop = (name: string) => {
  const id = idOf(name);
  return id !== OTHER && (HOP_BY_HOP_IDS & (1 << id)) !== 0;
};

describe("fieldNameId", () => {
  it.each([
    ["content-length", CONTENT_LENGTH],
    ["Content-Length", CONTENT_LENGTH],
    ["CONTENT-LENGTH", CONTENT_LENGTH],
    ["Transfer-Encoding", TRANSFER_ENCODING],
    ["Connection", CONNECTION],
    ["Keep-Alive", KEEP_ALIVE],
    ["Expect", EXPECT],
    ["UpGrade", UPGRADE],
    ["Host", HOST],
    ["dAtE", DATE],
  ])("recognises %s", (name, id) => {
    expect(idOf(name)).toBe(id);
  });

  it.each([
    ["a name of the same length", "content-lengtx"],
    ["a prefix", "content-len"],
    ["a longer name", "hosts"],
    ["same letters, other order", "tsoh"],
    ["another field", "content-type"],
    ["a digit where a letter was", "h0st"],
    ["an underscore for the dash", "keep_alive"],
    ["another dash-free token", "keep.alive"],
  ])("does not take %s (%s)", (_, name) => {
    expect(idOf(name)).toBe(OTHER);
  });

  it("reads only the name between from and to", () => {
    const buf = Buffer.from("xxHost: a", "latin1");
    expect(fieldNameId(buf, 2, 6)).toBe(HOST);
    expect(fieldNameId(buf, 2, 5)).toBe(OTHER);
  });

  it.each(HOP_BY_HOP_HEADERS.map((h) => [h]))("treats %s as hop-by-hop in any case", (name) => {
    expect(hopByHop(name)).toBe(true);
    expect(hopByHop(name.toUpperCase())).toBe(true);
  });

  it.each([["content-length"], ["host"], ["date"], ["expect"], ["x-connection"]])(
    "does not treat %s as hop-by-hop",
    (name) => {
      expect(hopByHop(name)).toBe(false);
    },
  );
});
