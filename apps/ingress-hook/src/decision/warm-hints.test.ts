import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { WarmHinter } from "./warm-hints.js";

function setup() {
  const clock = new ManualClock(0);
  const sent: string[] = [];
  const hinter = new WarmHinter(
    [
      {
        path: "/login",
        hosts: ["app.localhost"],
        services: [{ namespace: "default", name: "api" }],
        ttlSeconds: 60,
      },
    ],
    async (svc, ttl) => {
      sent.push(`${svc.name}:${ttl}`);
    },
    clock,
  );
  return { clock, sent, hinter };
}

describe("WarmHinter", () => {
  const rows = [
    { name: "the path itself", host: "app.localhost", path: "/login", hinted: true },
    { name: "below the path", host: "app.localhost", path: "/login/sso", hinted: true },
    { name: "a longer segment is another path", host: "app.localhost", path: "/loginx", hinted: false },
    { name: "another host", host: "other.localhost", path: "/login", hinted: false },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const { sent, hinter } = setup();
      hinter.observe(r.host, r.path);
      expect(sent).toEqual(r.hinted ? ["api:60"] : []);
    });
  }

  it("hints a service again only after half its TTL", async () => {
    const { clock, sent, hinter } = setup();
    hinter.observe("app.localhost", "/login");
    await clock.advance(29_000);
    hinter.observe("app.localhost", "/login");
    expect(sent).toHaveLength(1);
    await clock.advance(1_000);
    hinter.observe("app.localhost", "/login");
    expect(sent).toHaveLength(2);
  });
});
