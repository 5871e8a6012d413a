import { describe, expect, it } from "vitest";
import { Telemetry } from "../telemetry.js";
import { createMetrics } from "./metrics.js";

const a = { namespace: "default", name: "a" };
const b = { namespace: "team", name: "b" };

describe("activator metrics", () => {
  it("counts queued, rejected and replayed per revision, and /v1/status still sums them", () => {
    const t = new Telemetry();
    const m = createMetrics({ telemetry: t });
    t.queued(a);
    t.queued(a);
    t.rejected(b);
    t.replayed(a);
    const text = m.render();
    expect(text).toContain('thaw_activator_requests_queued_total{namespace="default",revision="a"} 2\n');
    expect(text).toContain('thaw_activator_requests_rejected_total{namespace="team",revision="b"} 1\n');
    expect(text).toContain('thaw_activator_requests_replayed_total{namespace="default",revision="a"} 1\n');
    expect(t.snapshot()).toMatchObject({ queued: 2, rejected: 1, replayed: 1 });
    t.queued(a);
    expect(m.render()).toContain(
      'thaw_activator_requests_queued_total{namespace="default",revision="a"} 3\n',
    );
  });

  it("observes cold starts in seconds under the revision's labels", () => {
    const t = new Telemetry();
    const m = createMetrics({ telemetry: t });
    t.coldStart({ ...a, durationMs: 1500 });
    const text = m.render();
    expect(text).toContain(
      'thaw_activator_cold_start_seconds_bucket{namespace="default",revision="a",le="1"} 0\n',
    );
    expect(text).toContain(
      'thaw_activator_cold_start_seconds_bucket{namespace="default",revision="a",le="2"} 1\n',
    );
    expect(text).toContain('thaw_activator_cold_start_seconds_sum{namespace="default",revision="a"} 1.5\n');
  });

  it("reads the queue depth and the stat link on each scrape; a gone revision's depth goes", () => {
    let depths = [{ ...a, waiting: 7 }];
    const link = { failures: 3, reconnects: 1, dropped: 0 };
    const m = createMetrics({
      telemetry: new Telemetry(),
      coordinator: { queueDepths: () => depths },
      statLink: link,
    });
    let text = m.render();
    expect(text).toContain('thaw_activator_queue_depth{namespace="default",revision="a"} 7\n');
    expect(text).toContain("thaw_activator_stat_link_failures_total 3\n");
    expect(text).toContain("thaw_activator_stat_link_reconnects_total 1\n");
    depths = [];
    link.reconnects = 2;
    text = m.render();
    expect(text).not.toContain("thaw_activator_queue_depth{");
    expect(text).toContain("thaw_activator_stat_link_reconnects_total 2\n");
  });
});
