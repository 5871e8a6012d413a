/** Rounds to `digits` decimal places, halves away from zero (Go's math.Round), so averages match Knative's. */
export function roundToNDigits(digits: number, value: number): number {
  const p = 10 ** digits;
  const r = Math.round(Math.abs(value) * p) / p;
  // Normalise -0 to 0: callers compare with ===/Object.is and print the value.
  return value < 0 && r !== 0 ? -r : r;
}
