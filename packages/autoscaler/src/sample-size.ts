/**
 * How many of `population` pods to scrape per tick: all of them up to 3, then the sample size for a 95 %
 * confidence, 5 % error estimate of the mean (15.3664 = 1.96² × 100 / 5²), as Knative does.
 */
export function podSampleSize(population: number): number {
  if (population <= 3) return Math.max(population, 0);
  const c = 15.3664;
  return Math.ceil((population * c) / (population + c - 1));
}
