/** One transcribed case, as `conformance/knative/README.md` describes it. */
export interface Vector {
  name: string;
  source: string;
  input: Record<string, unknown>;
  expect: Record<string, unknown>;
  derived?: boolean;
  notes?: string;
  // Vector files put some fields beside input/expect (kind, ops, ...).
  [extra: string]: unknown;
}

/** What running one vector came to. A skip always carries the reason. */
export type Outcome =
  | { status: "pass" }
  | { status: "fail"; reason: string }
  | { status: "skip"; reason: string };

/** Runs the vectors of one file; throws only for bugs in the adapter itself. */
export interface Adapter {
  run(vector: Vector): Promise<Outcome> | Outcome;
}

/** Outcome helpers so adapters read as assertions. */
export const pass: Outcome = { status: "pass" };
export function fail(reason: string): Outcome {
  return { status: "fail", reason };
}
export function skip(reason: string): Outcome {
  return { status: "skip", reason };
}
