/**
 * @thaw/h1-diff: a differential HTTP/1 harness. The same raw bytes go to a plain Node `http` server
 * (llhttp, the reference) and through a target to a recording app; every framing decision is compared.
 */
export { type Answer, type RawConnection, sendRaw } from "./client.js";
export { compare, type HeaderPolicy, messageDiff, type Outcome, type Side, type Verdict } from "./compare.js";
export { CORPUS, type CorpusRow } from "./corpus.js";
export type { Message, Rejection } from "./message.js";
export { type ConnectionLog, type Recorder, type RecorderOptions, startRecorder } from "./recorder.js";
export { type CaseResult, DEFAULT_LIMITS, type RunLimits, runCase, type Target } from "./run.js";
