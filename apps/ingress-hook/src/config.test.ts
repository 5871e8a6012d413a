import { describe, expect, it } from "vitest";
import { parseServiceRoutes } from "./config.js";

describe("parseServiceRoutes", () => {
  it("reads name, namespace (default 'default'), hosts and paths", () => {
    const r = parseServiceRoutes({
      listen: "127.0.0.1:8080",
      services: [
        { name: "hello", hosts: ["Hello.Localhost"], run: { command: ["node"] } },
        { name: "api", namespace: "shop", hosts: ["shop.localhost"], paths: ["/api"] },
      ],
    });
    expect(r).toEqual({
      ok: true,
      value: [
        { name: "hello", namespace: "default", hosts: ["hello.localhost"] },
        { name: "api", namespace: "shop", hosts: ["shop.localhost"], paths: ["/api"] },
      ],
    });
  });
  const bad = [
    { name: "no services list", doc: {}, path: "services" },
    { name: "bad name", doc: { services: [{ name: "Hello!", hosts: ["h"] }] }, path: "services[0].name" },
    { name: "empty hosts", doc: { services: [{ name: "a", hosts: [] }] }, path: "services[0].hosts" },
    {
      name: "relative path prefix",
      doc: { services: [{ name: "a", hosts: ["h"], paths: ["api"] }] },
      path: "services[0].paths[0]",
    },
  ];
  for (const row of bad) {
    it(`issue with a field path: ${row.name}`, () => {
      const r = parseServiceRoutes(row.doc);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.issues.map((i) => i.path)).toContain(row.path);
    });
  }
});
