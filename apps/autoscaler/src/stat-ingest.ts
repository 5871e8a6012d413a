import { decodeWireStatMessages, type Stat } from "@thaw/protocol";
import type { RevisionKey } from "./revision.js";

/** One stat pushed for a revision (a `WireStatMessage` whose `stat` was present). */
export interface PushedStat {
  rev: RevisionKey;
  stat: Stat;
}

/** What a pushed frame or body came to: the usable stats, or why the bytes were refused. */
export type IngestResult = { ok: true; stats: PushedStat[]; skipped: number } | { ok: false; error: string };

/**
 * Decodes one serialised `WireStatMessages` (a websocket frame or a POST body). Messages without a `stat`
 * or without a revision are skipped, as Knative's stat server does (f.1).
 */
export function ingestWireStats(bytes: Uint8Array): IngestResult {
  const decoded = decodeWireStatMessages(bytes);
  if (!decoded.ok) return { ok: false, error: decoded.issue.message };
  const stats: PushedStat[] = [];
  let skipped = 0;
  for (const m of decoded.value) {
    if (!m.stat || m.name === "" || m.namespace === "") {
      skipped++;
      continue;
    }
    stats.push({ rev: { namespace: m.namespace, name: m.name }, stat: m.stat });
  }
  return { ok: true, stats, skipped };
}
