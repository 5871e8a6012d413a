import type { Logger } from "../logger.js";
import type { DashboardFeed } from "./feed.js";

/**
 * One log line per scale event (`msg: "scale"`) and per cold start (`msg: "coldstart"`), carrying exactly
 * the fields of the page's records (docs/dashboard.md); samples are not logged. Returns the unsubscribe.
 */
export function logDashboardRecords(feed: DashboardFeed, logger: Logger): () => void {
  return feed.records((e) => logger.info(e.type, { ...e.data }));
}
