import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "./support/stack-harness.js";
import { startUp, type UpRun, until } from "./support/up-process.js";

/**
 * The README's `npm start` walkthrough prints what the README shows (issue 27.7): its commands run against
 * the real `thaw up` on examples/hello's config, and each sample block (`<!-- sample: id -->`) is compared
 * line by line with what came out, numbers and pod names masked; the sample's numbers must also be ones the
 * example's config allows.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const example = readFileSync(join(root, "examples/hello/thaw.config.yaml"), "utf8");
/** A number from the example's `env:` line (`STARTUP_DELAY_MS: "800"`). */
function envOf(name: string): number {
  const m = new RegExp(`${name}: "(\\d+)"`).exec(example);
  if (!m) throw new Error(`examples/hello/thaw.config.yaml sets no ${name}`);
  return Number(m[1]);
}

/** The lines of the code block that follows `<!-- sample: id ... -->`. */
function sample(id: string): string[] {
  const m = new RegExp(`<!-- sample: ${id}\\b[^>]*-->\\s*\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!m) throw new Error(`README.md has no sample block ${id}`);
  return (m[1] as string).trimEnd().split("\n");
}

/** A line with its variable parts masked: clock times, pod names, numbers. */
function shape(line: string): string {
  return line
    .replace(/\d\d:\d\d:\d\d\.\d{3}/g, "T")
    .replace(/hello-[0-9a-z]+/g, "POD")
    .replace(/\d+(\.\d+)?/g, "N")
    .trim();
}

let run: UpRun;
beforeAll(async () => {
  // The example as shipped, on a free port, its relative command resolved from the example's folder.
  const lines = example
    .replace(/^listen: .*$/m, "listen: 127.0.0.1:0")
    .replace(
      "command: [node, server.mjs]",
      `command: [node, ${JSON.stringify(join(root, "examples/hello/server.mjs"))}]`,
    )
    .split("\n");
  run = await startUp("thaw-readme", lines);
}, 60_000);
afterAll(async () => {
  await run?.dispose();
});

function linesOf(): string[] {
  return run.up.out.split("\n").filter((l) => /^\d\d:\d\d:\d\d\.\d{3} {2}default\/hello {2}/.test(l));
}

describe("the README's npm start walkthrough", () => {
  it("cold curl: the answer and the terminal lines have the sample's shape, with numbers the config allows", async () => {
    const r = await request(run.up.url, { headers: { Host: "hello.localhost" } });
    expect(r.status).toBe(200);
    const [curl] = sample("cold-curl");
    expect(shape(r.body)).toBe(shape(curl as string));
    // The app answers after STARTUP_DELAY_MS before it listens plus WORK_MS of work.
    const up = Number(/\(up (\d+) ms\)/.exec(curl as string)?.[1]);
    expect(up).toBeGreaterThanOrEqual(envOf("STARTUP_DELAY_MS") + envOf("WORK_MS"));

    await until(() => linesOf().some((l) => /cold start/.test(l)), 20_000, "the cold start line");
    const shown = sample("cold-lines");
    const printed = linesOf().slice(0, shown.length);
    expect(printed.map(shape)).toEqual(shown.map(shape));
    const firstByte = Number(/first byte \+(\d+) ms/.exec(shown.join("\n"))?.[1]);
    expect(firstByte).toBeGreaterThanOrEqual(envOf("WORK_MS"));
    const total = Number(/cold start (\d+) ms/.exec(shown.join("\n"))?.[1]);
    expect(total).toBeGreaterThanOrEqual(envOf("STARTUP_DELAY_MS") + envOf("WORK_MS"));
  }, 60_000);

  it("load: the documented pipeline counts answers per pod, and the scale-up line has the sample's shape", async () => {
    const [command] = sample("load-command");
    const url = new URL(run.up.url);
    const cmd = (command as string).replace("http://127.0.0.1:8080/", `http://127.0.0.1:${url.port}/`);
    expect(cmd).not.toBe(command);
    const out = await new Promise<string>((resolve, reject) =>
      execFile("bash", ["-c", cmd], { timeout: 90_000 }, (e, stdout) => (e ? reject(e) : resolve(stdout))),
    );
    const counts = out.trimEnd().split("\n");
    // One line per pod, each of the sample's shape, adding up to the 200 requests.
    const shown = sample("load-counts");
    expect(new Set(counts.map(shape))).toEqual(new Set(shown.map(shape)));
    expect(counts.length).toBeGreaterThan(1);
    expect(counts.reduce((n, l) => n + Number(/\d+/.exec(l)?.[0]), 0)).toBe(200);
    expect(shown.reduce((n, l) => n + Number(/\d+/.exec(l)?.[0]), 0)).toBe(200);

    // The reason's words, whether or not this run panicked or hit the cap in one step.
    const reason = (l: string) =>
      shape(l)
        .replace(/^T {2}default\/hello {2}N -> N {2}/, "")
        .replace(/^panic: /, "")
        .replace(/ \(capped by max-scale N\)$/, "");
    const [shownUp] = sample("load-lines");
    const ups = linesOf().filter((l) => {
      const m = / (\d+) -> (\d+) /.exec(l);
      return m !== null && Number(m[1]) > 0 && Number(m[2]) > Number(m[1]);
    });
    expect(ups.length).toBeGreaterThan(0);
    expect(ups.map(reason)).toContain(reason(shownUp as string));
    expect(shape(shownUp as string)).toMatch(/^T {2}default\/hello {2}N -> N {2}/);
  }, 120_000);
});
