import { ManualClock } from "@thaw/clock/testing";
import { scaleRequest, signScaleWebhook } from "@thaw/protocol";
import { describe, expect, it } from "vitest";
import { policyFor } from "./policy.js";
import type { RevisionKey } from "./revision.js";
import type { PodInfo, Scaler } from "./scalers/scaler.js";
import { autoscalerApp } from "./server.js";
import { AutoscalerService } from "./service.js";

const SECRET = "receiver-secret-0123456";
const rev: RevisionKey = { namespace: "default", name: "hello" };

/** Records what the autoscaler asks for; no pods ever become ready. */
class RecordingScaler implements Scaler {
  calls: number[] = [];
  async scale(_r: RevisionKey, desired: number): Promise<void> {
    this.calls.push(desired);
  }
  pods(): PodInfo[] {
    return [];
  }
  subscribe(): () => void {
    return () => {};
  }
  async close(): Promise<void> {}
}

function setup(secret: string | undefined = SECRET) {
  const clock = new ManualClock(Date.parse("2026-12-01T15:00:00Z"));
  const scaler = new RecordingScaler();
  const service = new AutoscalerService({ scaler, clock });
  const p = policyFor({ global: {}, autoscaling: {}, containerConcurrency: 1 });
  if (!p.ok) throw new Error("policy");
  service.addRevision(rev, p.value);
  const app = autoscalerApp({ service, clock, ...(secret ? { scaleWebhookSecret: secret } : {}) });
  const post = async (fields: Record<string, unknown>, key = SECRET) => {
    const body = JSON.stringify({
      ...scaleRequest({ ...rev, desiredScale: 1, reason: "activation" }, clock.now()),
      ...fields,
    });
    const headers = new Headers(await signScaleWebhook(key, body, clock.now()));
    return app.request("/v1/scale", { method: "POST", headers, body });
  };
  return { clock, scaler, post };
}

describe("POST /v1/scale on thaw-autoscaler (the scale webhook receiver)", () => {
  it("a signed desiredScale 1 wakes a service at zero at once", async () => {
    const { scaler, post } = setup();
    const res = await post({});
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 0));
    // One poke is one concurrent request: at containerConcurrency 1 and 70 % utilisation that is 2 pods.
    expect(scaler.calls.length).toBe(1);
    expect(scaler.calls[0]).toBeGreaterThanOrEqual(1);
  });

  it("a bad signature is 401 and scales nothing; an unknown service is 404", async () => {
    const { scaler, post } = setup();
    expect((await post({}, "someone-elses-secret")).status).toBe(401);
    expect((await post({ name: "ghost" })).status).toBe(404);
    await new Promise((r) => setTimeout(r, 0));
    expect(scaler.calls).toEqual([]);
  });

  it("is off without a secret and says which variable turns it on", async () => {
    const { post } = setup("");
    const res = await post({});
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/THAW_SCALE_WEBHOOK_SECRET/);
  });
});
