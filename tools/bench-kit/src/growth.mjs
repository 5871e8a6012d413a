// A growth curve (issue 30, goal 5) in one style for every bench: the figure at 1x, 10x, 100x its size,
// its slope, and a verdict on how the cost of one item grows, so a regression in scaling is a number:
//
//       growth decider tick CPU by revisions: 100 -> 0.21 ms, 1000 -> 1.9 ms, 10000 -> 22.0 ms; per item
//         2.10 / 1.90 / 2.20 us; slope 1.01
//   PASS  growth: decider tick per revision, 100x / 1x          1.05 x    target <= 1.5 x     load 1.52
import { formatValue, verdict } from "./verdict.mjs";

/**
 * The slope of `points` on log-log axes between its first and last point: how the total grows with the
 * size (1 = linear, each item costs the same; 2 = quadratic). `perItem` values are a cost per item, so the
 * total is value times size. NaN with fewer than two points or a value that is not positive.
 * @param {Array<[number, number]>} points
 * @param {boolean} perItem
 */
export function slopeOf(points, perItem) {
  if (points.length < 2) return Number.NaN;
  const total = (/** @type {[number, number]} */ [n, v]) => (perItem ? v * n : v);
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last || !(total(first) > 0) || !(total(last) > 0) || last[0] === first[0]) return Number.NaN;
  return Math.log(total(last) / total(first)) / Math.log(last[0] / first[0]);
}

/**
 * Prints the curve (`points`: [size, value], smallest size first, e.g. 1x, 10x, 100x), the cost per item
 * at each size and the slope, then a verdict: the cost of one item at the largest size over the smallest,
 * `<= target` (default 1.5). `perItem`: the values are already a cost per item (ns per decision); otherwise
 * they are a total over `size` items (a tick's ms over N revisions) and are divided by the size.
 * Returns whether it passed.
 * @param {string} name what grows, e.g. "decider tick CPU by revisions"
 * @param {Array<[number, number]>} points
 * @param {{ unit?: string, perItem?: boolean, item?: string, target?: number, itemUnit?: string, itemScale?: number }} [o]
 *   `item` names one item in the verdict ("revision"); `itemUnit`/`itemScale` print the per-item cost in
 *   another unit (e.g. "us" and 1000 for ms totals).
 */
export function growth(name, points, o = {}) {
  const { unit = "", perItem = false, item = "item", target = 1.5, itemUnit = unit, itemScale = 1 } = o;
  const u = unit ? ` ${unit}` : "";
  const per = points.map(([n, v]) => (perItem ? v : v / n) * itemScale);
  const slope = slopeOf(points, perItem);
  console.log(
    `      growth ${name}: ${points.map(([n, v]) => `${n} -> ${formatValue(v)}${u}`).join(", ")}; per ${item} ` +
      `${per.map(formatValue).join(" / ")}${itemUnit ? ` ${itemUnit}` : ""}; slope ${formatValue(slope)}`,
  );
  const first = points[0];
  const last = points[points.length - 1];
  const times = first && last ? Math.round(last[0] / first[0]) : Number.NaN;
  const ratio = (per[per.length - 1] ?? Number.NaN) / (per[0] ?? Number.NaN);
  return verdict(
    `growth: ${name}, per ${item} ${times}x / 1x`,
    ratio,
    "<=",
    target,
    "x",
    `slope ${formatValue(slope)}`,
  );
}
