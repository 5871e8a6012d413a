import { describe, expect, it } from "vitest";
import { parseWarmRules } from "./warm-rules.js";

const routes = [
  { name: "app", namespace: "default", hosts: ["app.localhost"] },
  { name: "api", namespace: "team", hosts: ["api.localhost"] },
];

describe("parseWarmRules (the gateway's THAW_WARM)", () => {
  it("reads thaw.config.yaml's warm: shape, services by name or namespace/name, hosts lower-cased", () => {
    const r = parseWarmRules(
      [{ path: "/login", hosts: ["App.Localhost"], services: ["app", "team/api"], ttlSeconds: 300 }],
      routes,
      "THAW_WARM",
    );
    expect(r).toEqual({
      ok: true,
      value: [
        {
          path: "/login",
          hosts: ["app.localhost"],
          services: [
            { namespace: "default", name: "app" },
            { namespace: "team", name: "api" },
          ],
          ttlSeconds: 300,
        },
      ],
    });
  });

  it.each([
    { name: "not a list", doc: { path: "/login" }, path: "THAW_WARM" },
    {
      name: "a path without /",
      doc: [{ path: "login", services: ["app"], ttlSeconds: 5 }],
      path: "THAW_WARM[0].path",
    },
    {
      name: "no services",
      doc: [{ path: "/l", services: [], ttlSeconds: 5 }],
      path: "THAW_WARM[0].services",
    },
    {
      name: "a service not routed",
      doc: [{ path: "/l", services: ["api"], ttlSeconds: 5 }],
      path: "THAW_WARM[0].services[0]",
    },
    {
      name: "a TTL of 0",
      doc: [{ path: "/l", services: ["app"], ttlSeconds: 0 }],
      path: "THAW_WARM[0].ttlSeconds",
    },
    {
      name: "a TTL over an hour",
      doc: [{ path: "/l", services: ["app"], ttlSeconds: 3601 }],
      path: "THAW_WARM[0].ttlSeconds",
    },
    {
      name: "hosts not strings",
      doc: [{ path: "/l", hosts: [1], services: ["app"], ttlSeconds: 5 }],
      path: "THAW_WARM[0].hosts",
    },
  ])("refuses $name, naming $path", ({ doc, path }) => {
    const r = parseWarmRules(doc, routes, "THAW_WARM");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path)).toContain(path);
  });
});
