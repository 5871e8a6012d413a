/**
 * What `thaw up`'s start-up lines say is true (issue 27 point 5): tracing is named only when it is on, and
 * a service that min-scale keeps running is not said to start scaled to zero. The real bin, real pods.
 */
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startUp, type UpRun, until } from "./support/up-process.js";

const hello = fileURLToPath(new URL("../../../examples/hello/server.mjs", import.meta.url));
const runs: UpRun[] = [];
afterAll(async () => {
  for (const r of runs) await r.dispose();
});

describe("thaw up's banner", () => {
  it("does not say tracing is on when it is off, and names the service min-scale keeps running", async () => {
    const run = await startUp("thaw-banner", [
      "listen: 127.0.0.1:0",
      "services:",
      "  - name: kept",
      "    hosts: [kept.localhost]",
      "    autoscaling: { min-scale: 1 }",
      `    run: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(hello)}], env: { STARTUP_DELAY_MS: "0" } }`,
      "  - name: cold",
      "    hosts: [cold.localhost]",
      `    run: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(hello)}] }`,
    ]);
    runs.push(run);
    await until(() => run.up.out.includes("Ctrl-C drains"), 20_000, "the banner's last line");
    expect(run.up.out).not.toMatch(/tracing +on/);
    expect(run.up.out).not.toContain("Every service starts scaled to zero");
    expect(run.up.out).toContain(
      "Kept running from the start by min-scale: default/kept (min-scale: 1); every other service starts scaled to zero.",
    );
  }, 60_000);
});
