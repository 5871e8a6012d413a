import { describe, expect, it } from "vitest";
import {
  type ColdStartMoments,
  findLogLine,
  helloFirst,
  helloMs,
  parseCtrEvent,
  parseServerTiming,
  splitColdStart,
  thawShare,
} from "../src/node/cold-start-split.js";

const moments: ColdStartMoments = {
  decided: 12,
  scaleWritten: 20,
  rsScaled: 35,
  created: 60,
  scheduled: 80,
  sandboxStarted: 300,
  appStarted: 500,
  queueProxyStarted: 600,
  queueProxyListening: 900,
  appListening: 1400,
  listenToAnswerMs: 30,
  listenToFirstMs: 2,
  firstAnswerMs: 11,
  listed: 320,
  ready: 9000,
  endpoints: 9010,
  firstByte: 1450,
};

describe("the cold-start split", () => {
  it("adds up to the first byte, and Thaw's share leaves out the kubelet's part and the app's start-up", () => {
    const parts = splitColdStart(moments);
    expect(parts.reduce((s, p) => s + p.ms, 0)).toBe(moments.firstByte);
    expect(Object.fromEntries(parts.map((p) => [p.key, p.ms]))).toEqual({
      toDecision: 12,
      toWrite: 8,
      toCreated: 40,
      toScheduled: 20,
      kubelet: 420,
      app: 900,
      toProbe: 2,
      appFirst: 11,
      toApp: 17,
      back: 20, // answered at 1430
    });
    expect(thawShare(parts)).toBe(1450 - 420 - 900 - 11);
  });

  it("reads containerd's event lines, the CRI log's timestamps, the app's own times and Server-Timing", () => {
    const e = parseCtrEvent(
      '2026-12-06 02:55:01.123456789 +0000 UTC k8s.io /tasks/start {"container_id":"abc","pid":42}',
    );
    expect(e).toEqual({
      at: Date.parse("2026-12-06T02:55:01.123Z"),
      topic: "/tasks/start",
      body: { container_id: "abc", pid: 42 },
    });
    expect(parseCtrEvent("2026-12-06 02:55:01 +0100 CET k8s.io /tasks/exit {}")?.at).toBe(
      Date.parse("2026-12-06T01:55:01.000Z"),
    );
    expect(parseCtrEvent("TOPIC k8s.io /tasks/start {}")).toBeUndefined();

    const log = [
      "2026-12-06T02:55:02.000000001Z hello: starting",
      "2026-12-06T02:55:02.8501Z hello: hello-x listening on 127.0.0.1:8080 after 801 ms",
    ].join("\n");
    expect(findLogLine(log, /listening on/)).toEqual({
      at: Date.parse("2026-12-06T02:55:02.850Z"),
      text: "hello: hello-x listening on 127.0.0.1:8080 after 801 ms",
    });
    expect(findLogLine(log, /nothing/)).toBeUndefined();
    expect(helloMs("hello: hello-x listening on 127.0.0.1:8080 after 801 ms", "after")).toBe(801);
    expect(helloMs("hello from hello-x (up 834 ms)\n", "up")).toBe(834);
    expect(helloMs("hello from hello-x", "up")).toBeUndefined();
    expect(
      helloFirst("hello: first request answered after 815 ms (its connection accepted after 803 ms)"),
    ).toEqual({ answeredMs: 815, acceptedMs: 803 });
    expect(helloFirst("hello: hello-x listening on 127.0.0.1:8080 after 801 ms")).toBeUndefined();

    expect(parseServerTiming("queued;dur=1400, scale;dur=300, ready;dur=1100,upstream;dur=3.5")).toEqual({
      queued: 1400,
      scale: 300,
      ready: 1100,
      upstream: 3.5,
    });
    expect(parseServerTiming(undefined)).toEqual({});
  });
});
