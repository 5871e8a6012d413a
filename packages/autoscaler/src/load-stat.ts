/**
 * The load-report fields the autoscaler reads; structurally a subset of `Stat` from @thaw/protocol, so a
 * decoded protobuf Stat can be passed as is.
 */
export interface LoadStat {
  averageConcurrentRequests: number;
  averageProxiedConcurrentRequests?: number;
  requestCount: number;
  proxiedRequestCount?: number;
  /** Unix seconds; 0 or absent = the time it was received. */
  timestamp?: number;
}

/**
 * Merges one scrape round: the sum of the sampled pods' stats scaled by population / sample size (e.4),
 * so a sample of 14 out of 100 pods still reports the whole revision's load.
 */
export function scaleScrapedStats(sampled: readonly LoadStat[], population: number): LoadStat {
  let conc = 0;
  let pconc = 0;
  let count = 0;
  let pcount = 0;
  for (const s of sampled) {
    conc += s.averageConcurrentRequests;
    pconc += s.averageProxiedConcurrentRequests ?? 0;
    count += s.requestCount;
    pcount += s.proxiedRequestCount ?? 0;
  }
  const f = sampled.length === 0 ? 0 : population / sampled.length;
  return {
    averageConcurrentRequests: conc * f,
    averageProxiedConcurrentRequests: pconc * f,
    requestCount: count * f,
    proxiedRequestCount: pcount * f,
  };
}
