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

describe("activator against llhttp: the corpus", () => {
  for (const row of CORPUS) {
    it(row.name, async () => {
      const result = await runCase(reference, target, row.bytes(HOST));
      expect(
        ["same"],
        JSON.stringify({ verdict: result.verdict, reference: result.reference, target: result.target }),
      ).toContain(result.verdict.outcome);
    });
  }
});
