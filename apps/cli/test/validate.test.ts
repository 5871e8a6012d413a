import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { validateCommand } from "../src/validate.js";

const dir = mkdtempSync(join(tmpdir(), "thaw-validate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe("thaw validate", () => {
  it("says ok for the example that npm start runs", async () => {
    const r = await validateCommand(join(import.meta.dirname, "../../../examples/hello/thaw.config.yaml"));
    expect(r).toMatchObject({ code: 0 });
    expect(r.output).toMatch(/: ok \(1 service\(s\)\)$/);
  });

  it.each([
    [
      "autoscaling keys checked by @thaw/autoscaler's rules",
      "services:\n  - name: a\n    autoscaling: { min-scale: 3, max-scale: 2, bogus: 1 }\n    run: { command: [node] }\n",
      ["services[0].autoscaling.bogus: unknown key", "services[0].autoscaling.min-scale"],
    ],
    [
      "global autoscaler keys",
      "autoscaler: { stable-window: 2s }\nservices:\n  - name: a\n    run: { command: [node] }\n",
      ["autoscaler.stable-window"],
    ],
    [
      "readiness probe checked by @thaw/readiness (Knative's webhook rules)",
      "services:\n  - name: a\n    readinessProbe: { httpGet: { path: /h }, tcpSocket: {} }\n    run: { command: [node] }\n",
      ["services[0].readinessProbe"],
    ],
    [
      "schema issues, every one at once",
      "listen: nope\nservices:\n  - name: Bad_Name\n    containerConcurrency: -1\n    run: { command: [node] }\n",
      ["listen:", "services[0].name:", "services[0].containerConcurrency:"],
    ],
    ["YAML syntax", "services: [\n", ["YAML syntax"]],
  ])("reports %s with field paths, exit 1", async (_n, text, fragments) => {
    const r = await validateCommand(file(`${fragments.length}-${Math.random()}.yaml`, text));
    expect(r.code).toBe(1);
    for (const f of fragments) expect(r.output).toContain(f);
  });
});
