import { describe, expect, it } from "vitest";
import { parseServiceRoutes } from "./config.js";

describe("parseServiceRoutes", () => {
  it("reads name, namespace (default 'default'), hosts, paths, containerConcurrency and maxQueue", () => {
    const r = parseServiceRoutes({
      listen: "127.0.0.1:8080",
      services: [
        { name: "hello", hosts: ["Hello.Localhost"], run: { command: ["node"] } },
        {
          name: "api",
          namespace: "shop",
          hosts: ["shop.localhost"],
          paths: ["/api"],
          containerConcurrency: 4,
        },
      ],
    });
    expect(r).toEqual({
      ok: true,
      value: [
        { name: "hello", namespace: "default", hosts: ["hello.localhost"], waitingPage: { afterMs: 2000 } },
        {
          name: "api",
          namespace: "shop",
          hosts: ["shop.localhost"],
          paths: ["/api"],
          containerConcurrency: 4,
          waitingPage: { afterMs: 2000 },
        },
      ],
    });
  });
  const bad = [
    { name: "no services list", doc: {}, path: "services" },
    { name: "bad name", doc: { services: [{ name: "Hello!", hosts: ["h"] }] }, path: "services[0].name" },
    { name: "empty hosts", doc: { services: [{ name: "a", hosts: [] }] }, path: "services[0].hosts" },
    {
      name: "waiting page template with an unknown placeholder",
      doc: { services: [{ name: "a", hosts: ["h"], waitingPage: { template: "<p>{{nme}}</p>" } }] },
      path: "services[0].waitingPage.template",
    },
    {
      name: "waiting page threshold not whole ms",
      doc: { services: [{ name: "a", hosts: ["h"], waitingPage: { afterMs: "2s" } }] },
      path: "services[0].waitingPage.afterMs",
    },
    {
      name: "relative path prefix",
      doc: { services: [{ name: "a", hosts: ["h"], paths: ["api"] }] },
      path: "services[0].paths[0]",
    },
    {
      name: "containerConcurrency not a whole number",
      doc: { services: [{ name: "a", hosts: ["h"], containerConcurrency: 1.5 }] },
      path: "services[0].containerConcurrency",
    },
    {
      name: "maxQueue 0",
      doc: { services: [{ name: "a", hosts: ["h"], maxQueue: 0 }] },
      path: "services[0].maxQueue",
    },
    {
      name: "containerConcurrency above Knative's 1000",
      doc: { services: [{ name: "a", hosts: ["h"], containerConcurrency: 1001 }] },
      path: "services[0].containerConcurrency",
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
