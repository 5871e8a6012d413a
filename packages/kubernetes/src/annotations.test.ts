import { describe, expect, it } from "vitest";
import { annotationOverrides, withOverrides } from "./annotations.js";
import { Backoff } from "./backoff.js";
import { claimLease, microTime } from "./lease-record.js";

describe("annotationOverrides", () => {
  it.each<{ name: string; in: Record<string, string>; block: Record<string, string>; issues: RegExp[] }>([
    {
      name: "valid keys become block entries (camelCase legacy spelling too)",
      in: {
        "autoscaling.knative.dev/min-scale": "1",
        "autoscaling.knative.dev/maxScale": "4",
        "app.kubernetes.io/name": "x",
      },
      block: { "min-scale": "1", "max-scale": "4" },
      issues: [],
    },
    {
      name: "a bad value is left out and named with the object and the annotation",
      in: { "autoscaling.knative.dev/target": "lots" },
      block: {},
      issues: [/deployment apps\/hello: annotation autoscaling\.knative\.dev\/target/],
    },
    {
      name: "an unknown key under the prefix is reported, not applied",
      in: { "autoscaling.knative.dev/min-scael": "1" },
      block: {},
      issues: [/unknown Knative autoscaling annotation/],
    },
  ])("$name", (row) => {
    const r = annotationOverrides(row.in, "deployment apps/hello");
    expect(r.block).toEqual(row.block);
    expect(r.issues).toHaveLength(row.issues.length);
    row.issues.forEach((re, i) => {
      expect(`${r.issues[i]?.path}: ${r.issues[i]?.message}`).toMatch(re);
    });
  });

  it("an annotation wins over the same key in the config block, whichever spelling the config used", () => {
    expect(
      withOverrides({ "autoscaling.knative.dev/min-scale": 2, target: 5 }, { "min-scale": "1" }),
    ).toEqual({
      target: 5,
      "min-scale": "1",
    });
  });
});

describe("Backoff", () => {
  it("doubles up to the cap, adds jitter from the injected random, resets", () => {
    const b = new Backoff({ initialMs: 100, maxMs: 400, jitter: 0.5, random: () => 1 });
    expect([b.next(), b.next(), b.next(), b.next()]).toEqual([150, 300, 600, 600]);
    b.reset();
    expect(b.next()).toBe(150);
  });
});

describe("Lease records", () => {
  it("MicroTime has six fractional digits; a new holder counts a transition, a renewal keeps acquireTime", () => {
    expect(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678))).toBe("2026-01-02T03:04:05.678000Z");
    const first = claimLease(undefined, "a", 0, 10);
    expect(first).toMatchObject({ holderIdentity: "a", leaseTransitions: 0 });
    const renewed = claimLease(first, "a", 2000, 10);
    expect(renewed).toMatchObject({
      acquireTime: first.acquireTime,
      leaseTransitions: 0,
      renewTime: microTime(2000),
    });
    expect(claimLease(renewed, "b", 20_000, 10)).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });
  });
});
