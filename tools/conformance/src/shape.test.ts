import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { kindsOf, registry, VECTOR_FILES } from "./registry.js";
import { runFile } from "./run.js";
import { dispatch, type Kind, matchingKinds } from "./shape.js";
import { pass, type Vector } from "./types.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const SETS = ["conformance/knative", "conformance/thaw"];
/** A Go test name no adapter has ever seen: dispatch must not depend on it. */
const UNSEEN = "pkg/never/seen_test.go#TestNobodyWroteThis/renamed";

async function vectorsOf(file: string): Promise<Vector[]> {
  const all: Vector[] = [];
  for (const set of SETS) {
    const j = JSON.parse(await readFile(join(ROOT, set, file), "utf8")) as { vectors: Vector[] };
    all.push(...j.vectors);
  }
  return all;
}

async function runAlone(file: string, vectors: Vector[]) {
  const dir = await mkdtemp(join(tmpdir(), "thaw-shape-"));
  const path = join(dir, file);
  await writeFile(path, JSON.stringify({ description: "shape test", vectors }));
  return runFile(path, registry);
}

describe.each(VECTOR_FILES)("%s: dispatch by shape", (file) => {
  it("every kind has a vector (public or own) that passes under a source name never seen", async () => {
    const kinds = await kindsOf(file);
    const vectors = await vectorsOf(file);
    const picked: Vector[] = [];
    for (const kind of kinds) {
      const v = vectors.find((x) => matchingKinds(kinds, x)[0] === kind);
      expect(v, `no vector of kind "${kind.name}"`).toBeDefined();
      if (v) picked.push({ ...v, name: `${kind.name}: ${v.name}`, source: UNSEEN });
    }
    const r = await runAlone(file, picked);
    expect(r.failures).toEqual([]);
    expect(r.passed).toBe(kinds.length);
  }, 60_000);

  it("every vector has exactly one kind", async () => {
    const kinds = await kindsOf(file);
    for (const v of await vectorsOf(file)) {
      expect(
        matchingKinds(kinds, v).map((k) => k.name),
        v.name,
      ).toHaveLength(1);
    }
  });

  it("a vector missing a required input field fails naming it", async () => {
    const kinds = await kindsOf(file);
    const vectors = await vectorsOf(file);
    const broken: Vector[] = [];
    const want: string[] = [];
    for (const kind of kinds) {
      const v = vectors.find((x) => matchingKinds(kinds, x)[0] === kind);
      const key = kind.input[0];
      if (!v || key === undefined) continue;
      const { [key]: _gone, ...input } = v.input;
      broken.push({ ...v, name: kind.name, source: UNSEEN, input });
      want.push(`input.${key}`);
    }
    const r = await runAlone(file, broken);
    expect(r.failed).toBe(broken.length);
    for (const [i, f] of r.failures.entries()) expect(f.reason, f.name).toContain(want[i]);
  }, 60_000);
});

describe("dispatch", () => {
  const kinds: Kind[] = [
    { name: "a", input: ["x"], expect: ["y"], run: () => pass },
    { name: "b", input: ["x", "z"], optionalInput: ["w"], expect: ["y"], run: () => pass },
    {
      name: "c",
      input: ["kind"],
      expect: ["y"],
      when: { test: (v) => v.input.kind === "c", text: "input.kind = c" },
      run: () => pass,
    },
  ];
  const vec = (input: Record<string, unknown>, expect: Record<string, unknown>): Vector => ({
    name: "v",
    source: UNSEEN,
    input,
    expect,
  });

  it("runs the one kind whose keys fit, optional keys included", async () => {
    expect(await dispatch(kinds, vec({ x: 1 }, { y: 1 }))).toEqual(pass);
    expect(await dispatch(kinds, vec({ x: 1, z: 2, w: 3 }, { y: 1 }))).toEqual(pass);
  });

  it("names the closest kind and what is missing or unknown", async () => {
    const out = await dispatch(kinds, vec({ x: 1, z: 2 }, { y: 1, extra: true }));
    expect(out).toEqual({
      status: "fail",
      reason: 'no adapter kind reads input {x, z}, expect {y, extra}; closest is "b": unknown expect.extra',
    });
    const missing = await dispatch(kinds, vec({ z: 2 }, { y: 1 }));
    expect(missing.status === "fail" && missing.reason).toContain('"b": missing input.x');
  });

  it("says when the keys fit but a value does not", async () => {
    const out = await dispatch(kinds, vec({ kind: "d" }, { y: 1 }));
    expect(out.status === "fail" && out.reason).toContain("input.kind = c does not hold");
  });

  it("fails an empty expect and an ambiguous adapter", async () => {
    expect((await dispatch(kinds, vec({ x: 1 }, {}))).status).toBe("fail");
    const twice = [...kinds, { ...(kinds[0] as Kind), name: "a2" }];
    const out = await dispatch(twice, vec({ x: 1 }, { y: 1 }));
    expect(out.status === "fail" && out.reason).toMatch(/ambiguous shape: a, a2/);
  });
});
