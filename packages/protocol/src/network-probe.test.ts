import { describe, expect, it } from "vitest";
import {
  answerNetworkProbe,
  MISSING_HASH_MESSAGE,
  stripNetworkHash,
  withoutNetworkHash,
} from "./network-probe.js";

const req = (headers: Record<string, string>, init: RequestInit = {}) =>
  new Request("http://x/healthz", { headers, ...init });

describe("network probe responder (knative-spec.md a.3 P4)", () => {
  it.each<{
    name: string;
    headers: Record<string, string>;
    status: number;
    hash: string | null;
    body: string;
  }>([
    {
      name: "probe with hash",
      headers: { "K-Network-Probe": "probe", "K-Network-Hash": "h1" },
      status: 200,
      hash: "h1",
      body: "",
    },
    {
      name: "probe with override hash",
      headers: { "K-Network-Probe": "probe", "K-Network-Hash": "override" },
      status: 200,
      hash: "override",
      body: "",
    },
    {
      name: "probe without hash",
      headers: { "K-Network-Probe": "probe" },
      status: 400,
      hash: null,
      body: `${MISSING_HASH_MESSAGE}\n`,
    },
    {
      name: "probe with empty hash",
      headers: { "K-Network-Probe": "probe", "K-Network-Hash": "" },
      status: 400,
      hash: null,
      body: `${MISSING_HASH_MESSAGE}\n`,
    },
  ])("answers $name", async ({ headers, status, hash, body }) => {
    const res = answerNetworkProbe(req(headers));
    expect(res?.status).toBe(status);
    expect(res?.headers.get("K-Network-Hash")).toBe(hash);
    expect(await res?.text()).toBe(body);
  });

  it.each<{ name: string; headers: Record<string, string> }>([
    { name: "no probe header", headers: { "K-Network-Hash": "h" } },
    { name: "queue probe", headers: { "K-Network-Probe": "queue", "K-Network-Hash": "h" } },
    { name: "activator probe", headers: { "K-Network-Probe": "activator" } },
  ])("passes on $name", ({ headers }) => {
    expect(answerNetworkProbe(req(headers))).toBeUndefined();
  });

  it("the 400 body is Knative's exact text", () => {
    expect(MISSING_HASH_MESSAGE).toBe('a probe request must contain a non-empty "K-Network-Hash" header');
  });
});

describe("stripping K-Network-Hash from requests passed on", () => {
  it("removes the hash, keeps everything else including the body", async () => {
    const original = req(
      { "K-Network-Hash": "h", "K-Network-Probe": "queue", "X-A": "1" },
      { method: "POST", body: "payload" },
    );
    const passed = stripNetworkHash(original);
    expect(passed.headers.has("K-Network-Hash")).toBe(false);
    expect(passed.headers.get("K-Network-Probe")).toBe("queue");
    expect(passed.headers.get("X-A")).toBe("1");
    expect(passed.method).toBe("POST");
    expect(passed.url).toBe("http://x/healthz");
    expect(await passed.text()).toBe("payload");
  });

  it("returns the same request when there is nothing to strip", () => {
    const original = req({ "X-A": "1" });
    expect(stripNetworkHash(original)).toBe(original);
  });

  it("withoutNetworkHash leaves its input alone", () => {
    const h = new Headers({ "K-Network-Hash": "h" });
    expect(withoutNetworkHash(h).has("K-Network-Hash")).toBe(false);
    expect(h.has("K-Network-Hash")).toBe(true);
  });
});
