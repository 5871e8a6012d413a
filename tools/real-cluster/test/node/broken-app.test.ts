import { printFigures } from "@thaw/bench-kit/overload";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installThawOnNode, type ThawOnNode } from "../../src/node/thaw-on-node.js";
import { getWith } from "../support.js";

/** The broken service: the example's image with a command that writes one line to stderr and exits 3. */
const CRASHY_HOST = "crashy.example.com";
const CRASHY = [
  "  - name: crashy",
  "    namespace: apps",
  `    hosts: [${CRASHY_HOST}]`,
  "    containerConcurrency: 1",
  // Far longer than the test waits: an answer it gets is the failure, not the timeout.
  "    timeoutSeconds: 600",
  "    kubernetes:",
  "      deployment: crashy",
  "      image: ghcr.io/thaw-dev/example-hello:0.1.0",
  "      containerPort: 8080",
  `      command: ["node", "-e", "console.error('boom'); process.exit(3)"]`,
  "      runAsUser: 1000",
];

// Issue 27 on a real node: the kubelet's own account of a crash (exit code, the container's last output as
// its termination message, the restarts) reaches the client that woke the app, in place of a wait for the
// revision's whole timeout.
describe("a broken app on a real node: the crash the kubelet reports is the client's answer", () => {
  let thaw: ThawOnNode | undefined;
  beforeAll(async () => {
    thaw = await installThawOnNode({ extraServices: CRASHY });
  }, 420_000);
  afterAll(async () => {
    await thaw?.stop();
  }, 120_000);

  it("a request for an app that exits 3 gets 503 ERR_REVISION_FAILED naming the exit code and its last output", async () => {
    const t = thaw as ThawOnNode;
    const activator = (await t.pods("thaw-system", "thaw-activator")).find((p) => p.status.podIP)?.status
      .podIP;
    expect(activator, "an activator pod with an IP").toBeDefined();
    // Through the activator, as a held request: Knative's revision headers name the service.
    const t0 = Date.now();
    const direct = await getWith(`http://${activator}:8012/`, {
      "knative-serving-namespace": "apps",
      "knative-serving-revision": "crashy",
    });
    const answeredMs = Date.now() - t0;
    expect(direct.status, direct.body).toBe(503);
    expect(direct.body).toMatch(/exited with code 3/);
    expect(direct.body).toMatch(/boom/);
    expect(direct.headers["retry-after"], "a 503 says when to retry").toBeDefined();
    // Through the ingress (nginx asking the hook): the same cause, as the hook's error body.
    const viaIngress = await getWith(`${t.nginx.url}/`, { host: CRASHY_HOST });
    expect(viaIngress.status, viaIngress.body).toBe(503);
    const err = (JSON.parse(viaIngress.body) as { error: { code: string; message: string } }).error;
    const why = err.code === "ERR_REVISION_FAILED" ? "" : `\n${await t.diagnostics()}`;
    expect(err.code, `${viaIngress.body}${why}`).toBe("ERR_REVISION_FAILED");
    expect(err.message).toMatch(/exited with code 3/);
    printFigures("real-node/broken-app", { answeredMs, timeoutMs: 600_000, answer: direct.body.trim() });
    // The kubelet goes on restarting it (a crash loop, backing off): the answer did not wait for that.
    const restarted = async () =>
      (await t.pods("apps", "crashy")).some((p) =>
        (p.status.containerStatuses ?? []).some((c) => c.restartCount > 0),
      );
    const until = Date.now() + 120_000;
    while (!(await restarted()) && Date.now() < until) await new Promise((r) => setTimeout(r, 500));
    expect(await restarted(), "the kubelet restarted the crashing container").toBe(true);
    // The healthy service beside it still answers.
    const hello = await getWith(`${t.nginx.url}/`, { host: "hello.example.com" });
    expect(hello.status, hello.body).toBe(200);
  }, 300_000);
});
