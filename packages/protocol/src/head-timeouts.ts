/** Go's and Knative's one minute to read a request head (ReadHeaderTimeout). */
export const DEFAULT_HEADERS_TIMEOUT_MS = 60_000;

/** The Node `http.Server` settings that bound slow and idle clients (numbers only: no Node import here). */
export interface HeadTimeouts {
  /** `createServer({ connectionsCheckingInterval })`: how often Node looks for heads past their deadline. */
  connectionsCheckingInterval: number;
  headersTimeout: number;
  keepAliveTimeout: number;
  /** 0: a body may stream as long as the revision allows (Knative sets no ReadTimeout). */
  requestTimeout: number;
}

/**
 * Settings for a server whose clients get `headersMs` to send a request head (slowloris) and `keepAliveMs`
 * idle between requests; a `headersMs` given shorter than that bounds the idle time too (unset: Knative's
 * one minute for heads, `keepAliveMs` untouched, so a 65 s idle stays above nginx's 60 s upstream keepalive).
 * Node checks head deadlines every 30 s by default, which would let a slow client keep its socket up to
 * 30 s past a short limit, so the check runs at a quarter of it.
 */
export function headTimeouts(headersMs?: number, keepAliveMs = 65_000): HeadTimeouts {
  const heads = headersMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  return {
    connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(heads / 4))),
    headersTimeout: heads,
    keepAliveTimeout: headersMs === undefined ? keepAliveMs : Math.min(keepAliveMs, headersMs),
    requestTimeout: 0,
  };
}
