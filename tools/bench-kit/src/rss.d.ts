/** RSS of one group of processes over a run, KiB. */
export interface RssFigures {
  beforeKiB: number;
  peakKiB: number;
  afterKiB: number;
}
/** Resident set size of one process in KiB (0 once it is gone). */
export function rssKiB(pid: number): number;
/** Pids of `root` and every descendant. */
export function processTree(root: number): number[];
/** Samples the summed RSS of named groups of processes until `stop()`. */
export function sampleRss(
  groups: () => Record<string, number[]>,
  intervalMs?: number,
): { stop(): Record<string, RssFigures> };
/** One line per group: before, peak and after in MiB. */
export function formatRss(report: Record<string, RssFigures>): string;
