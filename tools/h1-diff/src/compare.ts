/**
 * The comparison, independent of the target: what llhttp parsed from the raw bytes (the reference)
 * against what the app behind the target received. The rule: the target never forwards a message
 * sequence llhttp would not parse from the same bytes, and it answers (>= 400) before it closes a
 * connection it refuses.
 */
import type { Answer } from "./client.js";
import type { Message, Rejection } from "./message.js";

/** The header fields a target legitimately changes: everything else must arrive exactly as llhttp read it. */
export interface HeaderPolicy {
  /** Lower-case names left out on both sides (hop-by-hop fields the target removes, fields it adds). */
  ignored: readonly string[];
  /** The target removes the fields a request's `Connection` header names (never framing fields or Host). */
  dropsConnectionNamed: boolean;
  /** Lower-case names the target adds when the request has none (e.g. `host` for HTTP/1.0). */
  addedWhenAbsent: readonly string[];
  /** The target speaks HTTP/1.1 to its app whatever the client's version: versions are not compared. */
  upgradesVersion: boolean;
}

/** What one side of a run showed. */
export interface Side {
  /** Messages parsed: by the reference from the raw bytes, or by the app from what the target sent (null: not observable). */
  messages: Message[] | null;
  /** Refusals by the parser: the reference's, or the app's (the target sent bytes its app could not parse). */
  rejections: Rejection[];
  /** Final answers the client read. */
  answers: Answer[];
  /** The server closed the client connection. */
  closed: boolean;
}

/** How the target's decisions relate to llhttp's. */
export type Outcome =
  /** The same message sequence (and the same refusal, if any). */
  | "same"
  /** The target refused, with an answer, a message llhttp accepts (for a documented reason). */
  | "stricter"
  /** The target forwarded nothing wrong and is still waiting for bytes llhttp already refused. */
  | "pending"
  /**
   * The app refused an upgrade (no 101); the target answered it and closed the connection, passing on
   * nothing the client sent after it (the safe choice where the socket was handed over raw).
   */
  | "closed-after-upgrade"
  /**
   * A target that answers itself (Node's server without an `upgrade` listener) answered an upgrade request
   * and reads nothing after it: the requests behind it get no answer, and none is passed anywhere.
   */
  | "stopped-after-upgrade"
  /** A framing disagreement: the test fails. */
  | "disagree";

/** The outcome and, unless `same`, why. */
export interface Verdict {
  outcome: Outcome;
  detail: string;
}

/** Compares two sides; `knownStricter` says whether a refusal answer names a documented difference. */
export function compare(
  ref: Side,
  target: Side,
  policy: HeaderPolicy,
  knownStricter: (answer: Answer) => boolean,
): Verdict {
  const refMessages = ref.messages ?? [];
  const refRejected = ref.rejections.length > 0;
  if (target.rejections.length > 0) {
    return disagree(`the app behind the target refused what it was sent: ${target.rejections[0]?.code}`);
  }
  if (target.messages === null) return compareAnswers(refMessages, refRejected, target, knownStricter);
  const got = target.messages;
  // llhttp refused inside a message whose head Node's server never reported (head and error in one read),
  // and the target forwarded that head but never completed the message: the same refusal, one step later.
  let abortedLast = false;
  for (let i = 0; i < got.length; i++) {
    const want = refMessages[i];
    const refRefused =
      refRejected || (ref.closed && (ref.answers[ref.answers.length - 1]?.status ?? 0) >= 400);
    if (want === undefined && refRefused && i === got.length - 1 && got[i]?.complete === false) {
      abortedLast = true;
      break;
    }
    if (want === undefined) {
      return disagree(
        `message ${i + 1} forwarded, llhttp parsed only ${refMessages.length}: ${show(got[i])}`,
      );
    }
    const diff = messageDiff(want, got[i] as Message, policy);
    if (diff !== "") return disagree(`message ${i + 1}: ${diff}`);
  }
  const forwardedComplete = got.filter((m) => m.complete).length;
  const last = refMessages[got.length - 1];
  // A server reads nothing after a message that ends the connection (RFC 9112 9.6), though llhttp parses it.
  if (last?.complete && closesAfter(last)) return { outcome: "same", detail: "" };
  if (got.length === refMessages.length && !refRejected) return { outcome: "same", detail: "" };
  if (closedAfterUpgrade(got, target)) return closedAfter(got[got.length - 1]);
  // llhttp refused inside the message after the last one forwarded (it had read that message's head).
  const refusedNext =
    refRejected && got.length === refMessages.length - 1 && refMessages[got.length]?.complete === false;
  const sameRefusal = (refRejected && (got.length === refMessages.length || refusedNext)) || abortedLast;
  // The target stopped earlier than llhttp, or where it refused: only a refusal answered before closing will do.
  if (!target.closed) {
    return sameRefusal
      ? {
          outcome: "pending",
          detail: `llhttp refused (${ref.rejections[0]?.code}); the target waits for more`,
        }
      : disagree(`the target forwarded ${got.length} of ${refMessages.length} messages and still waits`);
  }
  const refusal = target.answers[forwardedComplete];
  if (refusal === undefined || refusal.status < 400) {
    return disagree(`the target closed after ${got.length} messages without a refusal answer`);
  }
  if (sameRefusal) return { outcome: "same", detail: "" };
  // Refused inside a message llhttp never completed either: Node's server reports no llhttp error there,
  // so llhttp's own view is not known.
  if (got.length === refMessages.length && last?.complete === false) {
    return {
      outcome: "stricter",
      detail: `refused where llhttp's verdict is not known: ${refusal.body.trim()}`,
    };
  }
  if (knownStricter(refusal))
    return { outcome: "stricter", detail: `${refusal.status} ${refusal.body.trim()}` };
  return disagree(`the target refused (${refusal.status} ${refusal.body.trim()}) what llhttp accepts`);
}

/** An upgrade request: an `Upgrade` field and the `upgrade` token in `Connection`. */
function isUpgrade(m: Message): boolean {
  return m.headers.some(([n]) => n.toLowerCase() === "upgrade") && connectionTokens(m).includes("upgrade");
}

function connectionTokens(m: Message): string[] {
  const tokens: string[] = [];
  for (const [name, value] of m.headers) {
    if (name.toLowerCase() === "connection")
      for (const t of value.split(",")) tokens.push(t.trim().toLowerCase());
  }
  return tokens;
}

/** The message ends its connection: `Connection: close`, or HTTP/1.0 without `keep-alive`. */
function closesAfter(m: Message): boolean {
  const tokens: string[] = [];
  for (const [name, value] of m.headers) {
    if (name.toLowerCase() === "connection")
      for (const t of value.split(",")) tokens.push(t.trim().toLowerCase());
  }
  return m.version === "1.0" ? !tokens.includes("keep-alive") : tokens.includes("close");
}

/**
 * Without a view of what was forwarded (a target that answers itself): the number of answers and the
 * refusal. A target may answer a request before its body is in, so a message llhttp left incomplete may
 * or may not have its answer.
 */
function compareAnswers(
  refMessages: Message[],
  refRejected: boolean,
  target: Side,
  knownStricter: (answer: Answer) => boolean,
): Verdict {
  // Nothing after a message that ends the connection is answered, though llhttp parses it.
  const ends = refMessages.findIndex((m) => m.complete && closesAfter(m));
  const upgrade = refMessages.findIndex((m) => m.complete && isUpgrade(m));
  if (
    upgrade >= 0 &&
    (ends < 0 || upgrade < ends) &&
    !refRejected &&
    closedAfterUpgrade(refMessages.slice(0, upgrade + 1), target)
  ) {
    return closedAfter(refMessages[upgrade]);
  }
  if (
    upgrade >= 0 &&
    (ends < 0 || upgrade < ends) &&
    !refRejected &&
    !target.closed &&
    upgrade < refMessages.length - 1 &&
    target.answers.length === refMessages.slice(0, upgrade + 1).filter((m) => m.complete).length
  ) {
    return { outcome: "stopped-after-upgrade", detail: `nothing read after ${show(refMessages[upgrade])}` };
  }
  const considered = ends < 0 ? refMessages : refMessages.slice(0, ends + 1);
  const complete = considered.filter((m) => m.complete).length;
  const heads = considered.length;
  const answers = target.answers;
  const last = answers[answers.length - 1];
  if (refRejected) {
    if (!target.closed) return disagree("llhttp refused, the target kept the connection open");
    const over = answers.length > heads + 1 || (answers.length === heads + 1 && (last?.status ?? 0) < 400);
    if (over) return disagree(`the target answered ${answers.length} requests, llhttp parsed ${heads}`);
    return { outcome: "same", detail: "" };
  }
  if (answers.length >= complete && answers.length <= heads) return { outcome: "same", detail: "" };
  const refused = target.closed && last !== undefined && last.status >= 400 && answers.length <= complete;
  if (refused) {
    return knownStricter(last)
      ? { outcome: "stricter", detail: "refused" }
      : disagree("the target refused, llhttp did not");
  }
  return disagree(`the target answered ${answers.length} requests, llhttp parsed ${complete}`);
}

/** The last of `forwarded` is a complete upgrade request, answered (not 101), and then the target closed. */
function closedAfterUpgrade(forwarded: Message[], target: Side): boolean {
  const last = forwarded[forwarded.length - 1];
  if (last === undefined || !last.complete || !isUpgrade(last) || !target.closed) return false;
  const answered = forwarded.filter((m) => m.complete).length;
  return target.answers.length === answered && target.answers.every((a) => a.status !== 101);
}

function closedAfter(m: Message | undefined): Verdict {
  return { outcome: "closed-after-upgrade", detail: `closed after the refused ${show(m)}` };
}

function disagree(detail: string): Verdict {
  return { outcome: "disagree", detail };
}

function show(m: Message | undefined): string {
  return m === undefined ? "none" : `${m.method} ${m.target}`;
}

/** "" when `got` is `want` as the policy allows the target to change it; else the first difference. */
export function messageDiff(want: Message, got: Message, policy: HeaderPolicy): string {
  if (want.method !== got.method) return `method ${want.method} vs ${got.method}`;
  if (want.target !== got.target)
    return `target ${JSON.stringify(want.target)} vs ${JSON.stringify(got.target)}`;
  if (!policy.upgradesVersion && want.version !== got.version)
    return `version ${want.version} vs ${got.version}`;
  const a = comparable(want, policy, null);
  const b = comparable(got, policy, want);
  if (a !== b) return `headers ${a} vs ${b}`;
  if (want.complete !== got.complete) return `complete ${want.complete} vs ${got.complete}`;
  if (want.complete && want.body !== got.body) {
    return `body ${JSON.stringify(want.body.slice(0, 60))} vs ${JSON.stringify(got.body.slice(0, 60))}`;
  }
  return "";
}

const FRAMING = new Set(["content-length", "transfer-encoding", "host"]);

/**
 * A re-framing target writes its own framing fields: Transfer-Encoding is compared without case, and a
 * Content-Length by its number (`005` and `5` frame the same body).
 */
function normalValue(lower: string, value: string): string {
  if (lower === "transfer-encoding") return value.toLowerCase();
  if (lower === "content-length" && /^\d+ *$/.test(value)) return String(Number(value));
  return value;
}

/** The fields as one comparable text: policy names left out, names lower-cased, framing fields normalised. */
function comparable(m: Message, policy: HeaderPolicy, reference: Message | null): string {
  const skip = new Set(policy.ignored);
  const source = reference ?? m;
  if (policy.dropsConnectionNamed) {
    for (const [name, value] of source.headers) {
      if (name.toLowerCase() !== "connection") continue;
      for (const token of value.split(",")) {
        const t = token.trim().toLowerCase();
        if (t !== "" && !FRAMING.has(t)) skip.add(t);
      }
    }
  }
  if (reference !== null) {
    for (const name of policy.addedWhenAbsent) {
      if (!reference.headers.some(([n]) => n.toLowerCase() === name)) skip.add(name);
    }
  }
  // A re-framing target writes its framing field where it likes: framing fields go first, in order.
  const framing: string[] = [];
  const out: string[] = [];
  for (const [name, value] of m.headers) {
    const lower = name.toLowerCase();
    // An empty Transfer-Encoding frames nothing (llhttp ignores it); a re-framing target drops it.
    if (skip.has(lower) || (lower === "transfer-encoding" && value === "")) continue;
    const line = `${lower}: ${normalValue(lower, value)}`;
    if (lower === "content-length" || lower === "transfer-encoding") framing.push(line);
    else out.push(line);
  }
  return JSON.stringify([...framing, ...out]);
}
