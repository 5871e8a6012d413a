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

/** A waiting-page template file in the test folder; its absolute path. */
function tpl(name: string, text: string): string {
  return file(name, text);
}

describe("thaw validate", () => {
  it("accepts a waiting page with its own template", async () => {
    const page = file(
      "page.html",
      '<html lang="en"><title>{{ service }}</title>{{refresh}}{{script}}</html>',
    );
    const cfg = `services:\n  - name: a\n    hosts: [a.localhost]\n    waitingPage: { after: 1s, template: ${JSON.stringify(page)} }\n    run: { command: [node] }\n`;
    expect(await validateCommand(file("page-ok.yaml", cfg))).toMatchObject({ code: 0 });
  });

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
    [
      "a waiting page threshold that is no duration",
      "services:\n  - name: a\n    hosts: [a.localhost]\n    waitingPage: { after: soon }\n    run: { command: [node] }\n",
      ["services[0].waitingPage.after:"],
    ],
    [
      "a waiting page template naming an unknown placeholder",
      `services:\n  - name: a\n    hosts: [a.localhost]\n    waitingPage: { template: ${JSON.stringify(tpl("bad-name.html", "<p>{{servise}}</p>"))} }\n    run: { command: [node] }\n`,
      ["services[0].waitingPage.template:", "unknown placeholder {{servise}}"],
    ],
    [
      "a waiting page template that does not parse",
      `services:\n  - name: a\n    hosts: [a.localhost]\n    waitingPage: { template: ${JSON.stringify(tpl("unclosed.html", "<p>{{service</p>"))} }\n    run: { command: [node] }\n`,
      ["services[0].waitingPage.template:", "line 1, column 4"],
    ],
    [
      "a waiting page template that is missing",
      "services:\n  - name: a\n    hosts: [a.localhost]\n    waitingPage: { template: nowhere.html }\n    run: { command: [node] }\n",
      ["services[0].waitingPage.template: cannot read"],
    ],
  ])("reports %s with field paths, exit 1", async (_n, text, fragments) => {
    const r = await validateCommand(file(`${fragments.length}-${Math.random()}.yaml`, text));
    expect(r.code).toBe(1);
    for (const f of fragments) expect(r.output).toContain(f);
  });
});
