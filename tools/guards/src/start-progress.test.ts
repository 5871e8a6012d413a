import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script of the repository, without types.
import { buildWithProgress } from "../../../scripts/build-progress.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");

describe("npm start's build shows progress", () => {
  it("says what it builds, one line per finished package, and the end (real turbo)", async () => {
    const lines: string[] = [];
    const code = await buildWithProgress(root, "@thaw/protocol...", (l: string) => lines.push(l));
    expect(code).toBe(0);
    expect(lines[0]).toMatch(
      // protocol, its clock, and its bench's bench-kit with that one's command-line (bench-kit has no build).
      /^npm start: building up to 4 packages \(turbo run build --filter=@thaw\/protocol\.\.\./,
    );
    const steps = lines.filter((l) => /^npm start: built /.test(l));
    expect(steps.map((l) => /built (\S+)/.exec(l)?.[1]).sort()).toEqual([
      "@thaw/clock",
      "@thaw/command-line",
      "@thaw/protocol",
    ]);
    expect(steps[2]).toMatch(/\(3 done(, cached)?, [\d.]+ s\)$/);
    expect(lines.at(-1)).toMatch(/^npm start: build done in [\d.]+ s \(3 packages, \d from cache\)$/);
  }, 120_000);
});
