import { describe, expect, it } from "vitest";
import { Header, INTERNAL_HEADERS } from "./headers.js";

describe("header names", () => {
  it("are lower-case, as Headers stores them", () => {
    for (const name of Object.values(Header)) expect(name).toBe(name.toLowerCase());
  });

  it("list every internal header the ingress must strip (DESIGN.md contract 5)", () => {
    for (const name of [
      "K-Network-Probe",
      "K-Network-Hash",
      "K-Proxy-Request",
      "K-Original-Host",
      "Knative-Serving-Revision",
      "Knative-Serving-Namespace",
    ]) {
      expect(INTERNAL_HEADERS).toContain(name.toLowerCase());
    }
  });
});
