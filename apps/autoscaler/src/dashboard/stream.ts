import type { Clock } from "@thaw/clock";
import { eventStreamResponse } from "@thaw/protocol";
import type { DashboardFeed } from "./feed.js";

/**
 * `GET /_thaw/api/stream`: server-sent events `sample`, `scale` and `coldstart` (docs/dashboard.md). On
 * connect the feed's replay comes first (the last 10 minutes of samples, recent scale events and cold
 * starts) so a chart is full at once, then every new event as it happens.
 */
export function dashboardStream(feed: DashboardFeed, clock: Clock, signal: AbortSignal): Response {
  return eventStreamResponse({
    clock,
    signal,
    feed: (emit) => {
      for (const e of feed.replay()) emit(e.type, e.data);
      return feed.on((e) => emit(e.type, e.data));
    },
  });
}
