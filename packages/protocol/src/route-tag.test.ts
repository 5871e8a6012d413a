import { describe, expect, it } from "vitest";
import { routeTagLabel } from "./route-tag.js";

describe("route-tag label (knative-spec.md c.8)", () => {
  it.each<{ name: string; headers: Record<string, string>; want: string }>([
    { name: "no headers", headers: {}, want: "kn:disabled" },
    { name: "default route only", headers: { "Knative-Serving-Default-Route": "true" }, want: "kn:default" },
    {
      name: "default route any value",
      headers: { "Knative-Serving-Default-Route": "false" },
      want: "kn:default",
    },
    { name: "tag", headers: { "Knative-Serving-Tag": "blue" }, want: "blue" },
    {
      name: "tag + default route true",
      headers: { "Knative-Serving-Tag": "blue", "Knative-Serving-Default-Route": "true" },
      want: "kn:undefined",
    },
    {
      name: "tag + default route false",
      headers: { "Knative-Serving-Tag": "blue", "Knative-Serving-Default-Route": "false" },
      want: "blue",
    },
  ])("$name", ({ headers, want }) => {
    expect(routeTagLabel(new Headers(headers))).toBe(want);
  });
});
