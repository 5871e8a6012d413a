/**
 * The smuggling corpus (@thaw/h1-diff) through the Node activator, against llhttp straight. The activator
 * sits on Node's own HTTP server, so it agrees by construction; this run shows it does. It is compared by
 * its answers (accept or refuse, how many requests answered): as a buffering proxy that forwards
 * pipelined requests concurrently and answers unroutable ones itself, what reaches its pod is not a
 * message-for-message copy to compare (the queue-proxy's run compares that).
 */
import { CORPUS, type HeaderPolicy, type Recorder, runCase, startRecorder, type Target } from "@thaw/h1-diff";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultRevisionConfig } from "../src/node/config.js";
import { type RunningActivator, startActivator } from "../src/node/server.js";
import { testActivatorConfig } from "./activator-config.js";

/** Routed by host: <revision>.<namespace>.svc.<domain>. */
const HOST = "hello-00001.default.svc.cluster.local";

/** Compared by its answers: no message-level header policy applies. */
const ANSWERS_ONLY: HeaderPolicy = {
  ignored: [],
  dropsConnectionNamed: false,
  addedWhenAbsent: [],
  upgradesVersion: false,
};

let reference: Recorder;
let pod: Recorder;
let activator: RunningActivator;
let target: Target;

beforeAll(async () => {
  reference = await startRecorder();
  // The pod answers the activator's queue probe itself, out of the record.
  pod = await startRecorder({
    intercept: (req, res) => {
      if (req.headers["k-network-probe"] !== "queue") return false;
      res.writeHead(200).end("queue");
      return true;
    },
  });
  activator = await startActivator(
    testActivatorConfig([
      {
        namespace: "default",
        name: "hello-00001",
        ...defaultRevisionConfig,
        endpoints: [`127.0.0.1:${pod.port}`],
      },
    ]),
  );
  target = {
    name: "activator",
    port: activator.port,
    app: null,
    policy: ANSWERS_ONLY,
    knownStricter: () => false,
  };
});
afterAll(async () => {
  await activator?.close();
  await pod?.close();
  await reference?.close();
});

/**
 * Upgrades the app refuses (the recorder never answers 101): the activator answers them and closes, as
 * Node's server handed it the raw socket; nothing after them may reach the pod (issue 26).
 */
const CLOSES_AFTER = new Set([
  "upgrade with a chunked body",
  "upgrade with a length",
  "upgrade answered without 101, then a pipelined request",
  "upgrade with a length, then a pipelined request",
  "upgrade with a chunked body, then a pipelined request",
  "two refused upgrades, then a pipelined request",
]);

describe("activator against llhttp: the corpus", () => {
  for (const row of CORPUS) {
    it(row.name, async () => {
      pod.reset();
      const result = await runCase(reference, target, row.bytes(HOST));
      // Whatever reached the pod went through the activator (its K-Proxy-Request), never raw.
      const raw = pod.messages.filter((m) => !m.headers.some(([n]) => n.toLowerCase() === "k-proxy-request"));
      expect(raw.map((m) => `${m.method} ${m.target}`)).toEqual([]);
      expect(
        [CLOSES_AFTER.has(row.name) ? "closed-after-upgrade" : "same"],
        JSON.stringify({ verdict: result.verdict, reference: result.reference, target: result.target }),
      ).toContain(result.verdict.outcome);
    });
  }
});
