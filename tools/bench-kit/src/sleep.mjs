/**
 * Resolves after `ms` milliseconds (benchmarks pace themselves with real time).
 * @param {number} ms
 */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
