/**
 * Runs one case: the bytes go to the reference recorder (llhttp straight) and then to the target, each
 * on a fresh connection; each side is read until it has settled, and the two are compared.
 */
import { type Answer, sendRaw } from "./client.js";
import { compare, type HeaderPolicy, type Side, type Verdict } from "./compare.js";
import type { Message } from "./message.js";
import type { Recorder } from "./recorder.js";

/** A server under test, as the harness needs it. */
export interface Target {
  readonly name: string;
  readonly port: number;
  /** The recorder the target forwards to (null: the target answers itself; only answers are compared). */
  readonly app: Recorder | null;
  readonly policy: HeaderPolicy;
  /** Whether a refusal answer names a documented case where the target is stricter than llhttp. */
  knownStricter(answer: Answer): boolean;
}

/** Both sides of one case and the verdict. */
export interface CaseResult {
  reference: Side;
  target: Side;
  verdict: Verdict;
}

/**
 * Bounds of one case: how long each side may take to settle, how long a settled state must hold, and how
 * long when a message is still incomplete (its body may yet be arriving on a loaded machine).
 */
export interface RunLimits {
  maxMs: number;
  stableMs: number;
  incompleteMs?: number;
}

/** Generous for CI on a loaded machine: a side that has not settled by then is compared as it is. */
export const DEFAULT_LIMITS: RunLimits = { maxMs: 2000, stableMs: 5, incompleteMs: 50 };

function completeCount(messages: Message[]): number {
  let n = 0;
  for (const m of messages) if (m.complete) n++;
  return n;
}

function snapshot(messages: Message[]): Message[] {
  return messages.map((m) => ({ ...m, headers: [...m.headers] }));
}

/** Runs `bytes` through `reference` and `target` and compares them. */
export async function runCase(
  reference: Recorder,
  target: Target,
  bytes: Buffer,
  limits: RunLimits = DEFAULT_LIMITS,
): Promise<CaseResult> {
  reference.reset();
  const ref = await sendRaw(reference.port, bytes);
  const refSettled = () => {
    const log = reference.connections.get(ref.localPort);
    if (ref.closed) return true;
    if (log === undefined || log.replaying || log.socket.bytesRead < bytes.length) return false;
    return ref.answers.length >= completeCount(log.messages);
  };
  const refIncomplete = () =>
    reference.connections.get(ref.localPort)?.messages.some((m) => !m.complete) === true;
  await settle(ref.until.bind(ref), refSettled, limits, refIncomplete);
  const refLog = reference.connections.get(ref.localPort);
  const refSide: Side = {
    messages: snapshot(refLog?.messages ?? []),
    rejections: refLog?.rejection ? [refLog.rejection] : [],
    answers: [...ref.answers],
    closed: ref.closed,
  };
  ref.destroy();

  const app = target.app;
  app?.reset();
  const want = refSide.messages ?? [];
  const wantPattern = want.map((m) => m.complete).join();
  const conn = await sendRaw(target.port, bytes);
  // Where llhttp refused or the connection ended, so must the target: only its close settles it.
  const mustClose = refSide.closed || refSide.rejections.length > 0;
  const targetSettled = () => {
    if (conn.closed) return true;
    if (mustClose && app === null) return false;
    if (app === null) {
      return conn.answers.length >= completeCount(want) + refSide.rejections.length;
    }
    const got = app.messages;
    if (app.rejections.length > 0 || got.length > want.length) return true;
    return (
      !mustClose &&
      got.length === want.length &&
      conn.answers.length >= completeCount(got) &&
      got.map((m) => m.complete).join() === wantPattern
    );
  };
  await settle(
    conn.until.bind(conn),
    targetSettled,
    limits,
    () => app?.messages.some((m) => !m.complete) === true,
  );
  const targetSide: Side = {
    messages: app === null ? null : snapshot(app.messages),
    rejections: app === null ? [] : [...app.rejections],
    answers: [...conn.answers],
    closed: conn.closed,
  };
  conn.destroy();
  return {
    reference: refSide,
    target: targetSide,
    verdict: compare(refSide, targetSide, target.policy, (a) => target.knownStricter(a)),
  };
}

/** Waits until `predicate` holds and still holds a while later (or the time is up). */
async function settle(
  until: (p: () => boolean, maxMs: number) => Promise<boolean>,
  predicate: () => boolean,
  limits: RunLimits,
  incomplete: () => boolean,
): Promise<void> {
  const started = Date.now();
  for (;;) {
    const left = limits.maxMs - (Date.now() - started);
    if (!(await until(predicate, Math.max(0, left)))) return;
    const wait = incomplete() ? (limits.incompleteMs ?? limits.stableMs) : limits.stableMs;
    await new Promise((r) => setTimeout(r, wait));
    if (predicate() || Date.now() - started >= limits.maxMs) return;
  }
}
