import { describe, expect, it } from "vitest";
import { DURATION_BUCKETS_SECONDS, RequestMetrics } from "./request-metrics.js";

describe("RequestMetrics", () => {
  it("puts each duration in the first bucket whose bound it does not exceed", () => {
    const m = new RequestMetrics({}, null);
    m.observe(200, 5); // exactly 0.005 s: first bucket
    m.observe(200, 6);
    m.observe(200, 20_000); // beyond 10 s: +Inf only
    const text = m.render();
    expect(text).toContain(
      'kn_serving_invocation_duration_seconds_bucket{http_response_status_code="200",le="0.005"} 1\n',
    );
    expect(text).toContain(
      'kn_serving_invocation_duration_seconds_bucket{http_response_status_code="200",le="0.01"} 2\n',
    );
    expect(text).toContain(
      'kn_serving_invocation_duration_seconds_bucket{http_response_status_code="200",le="10"} 2\n',
    );
    expect(text).toContain(
      'kn_serving_invocation_duration_seconds_bucket{http_response_status_code="200",le="+Inf"} 3\n',
    );
    expect(text).toContain(
      'kn_serving_invocation_duration_seconds_count{http_response_status_code="200"} 3\n',
    );
    expect(text).toContain(
      'kn_serving_invocation_duration_seconds_sum{http_response_status_code="200"} 20.011\n',
    );
    expect(DURATION_BUCKETS_SECONDS).toHaveLength(14);
  });

  it("escapes label values and reports the queue depth", () => {
    const m = new RequestMetrics({ k8s_pod_name: 'a"b' }, () => 7);
    expect(m.render()).toContain('kn_serving_queue_depth{k8s_pod_name="a\\"b"} 7\n');
  });
});
