/**
 * The smuggling corpus (@thaw/h1-diff) against the forward-auth service, against llhttp straight. The
 * service sits on Node's own HTTP server, so it agrees by construction; this run shows it does. It
 * forwards nothing, so it is compared by its answers: accept or refuse, and how many requests answered.
 */
import { CORPUS, type HeaderPolicy, type Recorder, runCase, startRecorder, type Target } from "@thaw/h1-diff";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HookService, startIngressHook } from "../src/node/service.js";

/** Compared by its answers: no message-level header policy applies. */
const ANSWERS_ONLY: HeaderPolicy = {
  ignored: [],
  dropsConnectionNamed: false,
  addedWhenAbsent: [],
  upgradesVersion: false,
};

let reference: Recorder;
let hook: HookService;
let target: Target;

beforeAll(async () => {
  reference = await startRecorder();
  // No services and no watch: every request gets the hook's own answer at once (no activator needed).
  hook = await startIngressHook({ port: 0, activatorUrl: "http://127.0.0.1:9", services: [], watch: false });
  target = {
    name: "ingress-hook",
    port: hook.port,
    app: null,
    policy: ANSWERS_ONLY,
    knownStricter: () => false,
  };
});
afterAll(async () => {
  await hook?.close();
  await reference?.close();
});

/** Node's server without an upgrade listener answers an upgrade and reads nothing after it (no splice). */
const STOPS_AFTER = new Set([
  "upgrade answered without 101, then a pipelined request",
  "upgrade with a length, then a pipelined request",
  "upgrade with a chunked body, then a pipelined request",
  "two refused upgrades, then a pipelined request",
]);

describe("ingress hook (forward-auth) against llhttp: the corpus", () => {
  for (const row of CORPUS) {
    it(row.name, async () => {
      const result = await runCase(reference, target, row.bytes("a.example"));
      expect(result.verdict.outcome, JSON.stringify(result)).toBe(
        STOPS_AFTER.has(row.name) ? "stopped-after-upgrade" : "same",
      );
    });
  }
});
