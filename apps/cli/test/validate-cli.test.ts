/**
 * `thaw validate` as a user runs it (issue 27 point 4): the real bin, as a child process, on files with
 * what used to cost one run per mistake, a library's message, the wrong line, or a silent misbehaviour.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runBin } from "@thaw/command-line/node/testing";
import { afterAll, describe, expect, it } from "vitest";

const bin = fileURLToPath(new URL("../bin/thaw.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "thaw-validate-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function validate(text: string) {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  const r = await runBin(bin, ["validate", file], { PATH: process.env.PATH });
  return {
    ...r,
    lines: r.stderr
      .split("\n")
      .filter(Boolean)
      .map((l) => l.slice(file.length + 2)),
  };
}

const RUN = "    run: { command: [node, server.js] }\n";

describe("thaw validate (the bin)", () => {
  it("reports every unknown key of every object at once, each with the key meant, no key list repeated", async () => {
    const r = await validate(
      [
        "services:",
        "  - name: a",
        "    hosts: [a.localhost]",
        "    concurrency: 4",
        "    autoscaling: { max-scael: 3, maxScale: 2 }",
        "    run:",
        "      command: [node, server.js]",
        '      enviroment: { A: "1" }',
        "  - name: b",
        "    hosts: [b.localhost]",
        "    timeoutSecond: 5",
        RUN,
      ].join("\n"),
    );
    expect(r.code).toBe(1);
    expect(r.lines).toEqual(
      expect.arrayContaining([
        "services[0].concurrency: unknown field (did you mean containerConcurrency?)",
        "services[0].run.enviroment: unknown field (did you mean env?)",
        "services[1].timeoutSecond: unknown field (did you mean timeoutSeconds?)",
        "services[0].autoscaling.max-scael: unknown key (did you mean max-scale?)",
        "services[0].autoscaling.maxScale: unknown key (did you mean max-scale?)",
      ]),
    );
    expect(r.stderr).not.toMatch(/allowed here|expected one of/);
  });

  it("lists the allowed keys once per object when nothing is close", async () => {
    const r = await validate(
      `services:\n  - name: a\n    hosts: [a.localhost]\n    qqq: 1\n    zzz: 2\n${RUN}`,
    );
    expect(r.lines.filter((l) => l.includes("allowed here"))).toHaveLength(1);
    expect(r.lines).toContain("services[0].zzz: unknown field");
  });

  it("names the field and the fix instead of the schema library's message", async () => {
    const r = await validate(`services:\n  - name: a\n    hosts: a.localhost\n${RUN}`);
    expect(r.lines).toEqual([
      'services[0].hosts: expected a list of host names, e.g. [hello.localhost]; got the string "a.localhost"',
    ]);
  });

  it("shows numbers as the user wrote them, and says the rule a bad probe port breaks", async () => {
    const r = await validate(
      [
        "services:",
        "  - name: a",
        "    hosts: [a.localhost]",
        "    autoscaling: { target: 0, max-scale: -1, panic-window-percentage: 500, min-scale: abc }",
        "    readinessProbe: { httpGet: { path: /, port: 99999 } }",
        RUN,
      ].join("\n"),
    );
    expect(r.code).toBe(1);
    expect(r.lines).toEqual(
      expect.arrayContaining([
        "services[0].autoscaling.target: 0 must be ≥ 0.01",
        "services[0].autoscaling.max-scale: -1 must be a whole number ≥ 0",
        "services[0].autoscaling.panic-window-percentage: 500 must be in [1, 100]",
        'services[0].autoscaling.min-scale: "abc" is not a 32-bit whole number (Go\'s strconv.ParseInt); it must be a whole number ≥ 0',
        "services[0].readinessProbe.httpGet.port: invalid value: 99999; a probe port must be a TCP port, 1 to 65535 (or left out for the container's own port)",
      ]),
    );
  });

  it("points a YAML error at the line and column to fix (an unclosed quote on line 7)", async () => {
    const r = await validate(
      'services:\n  - name: a\n    hosts: [a.localhost]\n    run:\n      command: [x]\n      env:\n        A: "1\n    paths: [/x]\n',
    );
    expect(r.code).toBe(1);
    expect(r.lines).toEqual(['line 7, column 12: YAML syntax: Missing closing "quote']);
  });

  it.each([
    {
      name: "an exec readiness probe thaw up would not run",
      text: `services:\n  - name: a\n    hosts: [a.localhost]\n    readinessProbe: { exec: { command: [test, -f, /tmp/ready] } }\n${RUN}`,
      want: /^services\[0\]\.readinessProbe\.exec: is not run by thaw up .*httpGet: \{ path: \/healthz \}/,
    },
    {
      name: "the HPA class (CPU), which nothing here scales on",
      text: `services:\n  - name: a\n    hosts: [a.localhost]\n    autoscaling: { class: hpa.autoscaling.knative.dev, metric: cpu }\n${RUN}`,
      want: /^services\[0\]\.autoscaling\.class: hpa\.autoscaling\.knative\.dev is not supported: .*kpa/,
    },
    {
      name: "a service with no hosts and no paths (every request 404)",
      text: `services:\n  - name: a\n${RUN}`,
      want: /^services\[0\]\.hosts: is empty and so are paths: .*404.*hosts, e\.g\. \[hello\.localhost\]/,
    },
  ])("refuses $name, saying what to use instead", async ({ text, want }) => {
    const r = await validate(text);
    expect(r.code).toBe(1);
    expect(
      r.lines.some((l) => want.test(l)),
      r.stderr,
    ).toBe(true);
  });

  it("accepts the simulate: block thaw-simulate documents, and checks it", async () => {
    const ok = await validate(
      `simulate: { startupDelay: 800ms, tick: 2s, initialReplicas: 0 }\nservices:\n  - name: a\n    hosts: [a.localhost]\n${RUN}`,
    );
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    const bad = await validate(
      `simulate: { tick: soon, initalReplicas: 1 }\nservices:\n  - name: a\n    hosts: [a.localhost]\n${RUN}`,
    );
    expect(bad.lines).toEqual(
      expect.arrayContaining([
        "simulate.tick: must be a duration such as 30s, 1m30s or 250ms",
        "simulate.initalReplicas: unknown field (did you mean initialReplicas?)",
      ]),
    );
  });
});
