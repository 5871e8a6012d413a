/** Knative's `Stat` (stat.proto, package `metrics`): one source's load report for one revision. */
export interface Stat {
  podName: string;
  averageConcurrentRequests: number;
  averageProxiedConcurrentRequests: number;
  /** Requests per second after the queue-proxy's division by its reporting period. */
  requestCount: number;
  proxiedRequestCount: number;
  /** Seconds since the reporting process started. */
  processUptime: number;
  /** Unix seconds; 0 means "use the time it was received". */
  timestamp: number;
}

/** A `Stat` tagged with its revision, as the activator sends it. */
export interface WireStatMessage {
  namespace: string;
  name: string;
  /** Absent on the wire = a message the autoscaler skips. */
  stat?: Stat;
}

/** A `Stat` with every field at its proto3 default. */
export function emptyStat(podName = ""): Stat {
  return {
    podName,
    averageConcurrentRequests: 0,
    averageProxiedConcurrentRequests: 0,
    requestCount: 0,
    proxiedRequestCount: 0,
    processUptime: 0,
    timestamp: 0,
  };
}
