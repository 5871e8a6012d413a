/**
 * The text frames of the stat websocket, beside the binary stat frames: {@link ProblemNote} from the
 * autoscaler to the activators, {@link FirstByteNote} from an activator to the autoscaler.
 *
 * What an autoscaler tells the activators connected to its stat websocket about a revision's pods (text
 * frames, beside the binary stat frames that go the other way): the scaler found them failing (held
 * requests are answered now with ERR_REVISION_FAILED and this message), still waiting (a timeout names
 * it), or well again (`message` null).
 */
export interface ProblemNote {
  type: "problem";
  namespace: string;
  name: string;
  severity: "failing" | "waiting" | null;
  message: string | null;
}

/** Largest note read: a message is a few lines of an app's output. */
export const PROBLEM_NOTE_MAX_BYTES = 16 * 1024;

/** Parses one text frame as a {@link ProblemNote}; undefined for anything else (other frames are ignored). */
export function parseProblemNote(text: string): ProblemNote | undefined {
  const o = jsonFrame(text, PROBLEM_NOTE_MAX_BYTES) as Partial<ProblemNote> | null | undefined;
  if (o?.type !== "problem" || typeof o.namespace !== "string" || typeof o.name !== "string")
    return undefined;
  const severity = o.severity === "failing" || o.severity === "waiting" ? o.severity : null;
  const message = typeof o.message === "string" ? o.message : null;
  return { type: "problem", namespace: o.namespace, name: o.name, severity, message };
}

/**
 * What an activator tells the autoscaler over the same link: the first request it held while `name` had no
 * ready pod got its answer's head at `at` (epoch ms, the activator's clock), once per cold start. The
 * autoscaler ends that cold start's record with it (the `firstByte` phase, docs/dashboard.md).
 */
export interface FirstByteNote {
  type: "firstByte";
  namespace: string;
  name: string;
  at: number;
}

/** Largest first-byte note read (its names are DNS labels). */
export const FIRST_BYTE_NOTE_MAX_BYTES = 1024;

/** Parses one text frame as a {@link FirstByteNote}; undefined for anything else. */
export function parseFirstByteNote(text: string): FirstByteNote | undefined {
  const o = jsonFrame(text, FIRST_BYTE_NOTE_MAX_BYTES) as Partial<FirstByteNote> | null | undefined;
  if (o?.type !== "firstByte" || typeof o.namespace !== "string" || typeof o.name !== "string")
    return undefined;
  if (typeof o.at !== "number" || !Number.isSafeInteger(o.at) || o.at <= 0) return undefined;
  return { type: "firstByte", namespace: o.namespace, name: o.name, at: o.at };
}

/** A text frame's JSON, when it is at most `max` characters and parses; undefined otherwise. */
function jsonFrame(text: string, max: number): unknown {
  if (text.length > max) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
