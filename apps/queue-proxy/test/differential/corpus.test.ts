/**
 * The smuggling corpus through the real queue-proxy (in process, in front of a recording app) against
 * llhttp straight: every row must give the same message sequence, or a documented refusal.
 */
import { CORPUS, type Outcome, runCase } from "@thaw/h1-diff";
import { describe, expect, it } from "vitest";
import { differentialPair } from "./target.js";

/** Rows where the queue-proxy refuses, with an answer, what llhttp accepts (README, "Known differences"). */
const STRICTER: Record<string, Outcome> = {
  "TE `gzip, chunked`": "stricter",
  "chunk size of 16 f's": "stricter",
  "two spaces in the request line": "stricter",
  "two Host fields": "stricter",
  "missing Host in HTTP/1.1": "stricter",
};

const pair = differentialPair();

describe("queue-proxy against llhttp: the corpus", () => {
  for (const row of CORPUS) {
    it(row.name, async () => {
      const result = await runCase(pair.reference, pair.target, row.bytes("a"));
      const want = STRICTER[row.name] ?? "same";
      expect(
        { outcome: result.verdict.outcome, detail: result.verdict.detail },
        JSON.stringify({ reference: result.reference, target: result.target }),
      ).toEqual({ outcome: want, detail: want === "same" ? "" : expect.any(String) });
    });
  }
});
