import { describe, expect, it } from "vitest";
import {
  type ActivatorHealthState,
  activatorHealthResponse,
  activatorProbeResponse,
  escapeHtml,
  goQuote,
  SIGTERM_MESSAGE,
} from "./activator-probe.js";

const req = (headers: Record<string, string>) => new Request("http://x/", { method: "POST", headers });

describe("activator probe responder", () => {
  it.each<{ name: string; headers: Record<string, string>; status: number; body: string }>([
    { name: "activator probe", headers: { "K-Network-Probe": "activator" }, status: 200, body: "activator" },
    {
      name: "probe for another target",
      headers: { "K-Network-Probe": "queue" },
      status: 400,
      body: 'unexpected probe header value: "queue"\n',
    },
    {
      name: "value is html-escaped then quoted",
      headers: { "K-Network-Probe": `<a href="x">&'` },
      status: 400,
      body: 'unexpected probe header value: "&lt;a href=&#34;x&#34;&gt;&amp;&#39;"\n',
    },
  ])("answers $name", async ({ headers, status, body }) => {
    const res = activatorProbeResponse(req(headers));
    expect(res?.status).toBe(status);
    expect(await res?.text()).toBe(body);
  });

  it.each<{ name: string; headers: Record<string, string> }>([
    { name: "no header", headers: {} },
    { name: "empty header", headers: { "K-Network-Probe": "" } },
  ])("passes on $name", ({ headers }) => {
    expect(activatorProbeResponse(req(headers))).toBeUndefined();
  });

  it.each([
    ["plain", "abc", '"abc"'],
    ["backslash", "a\\b", '"a\\\\b"'],
    ["tab", "a\tb", '"a\\tb"'],
    ["control byte", "a\u0001b", '"a\\x01b"'],
    ["unicode kept", "π", '"π"'],
  ])("goQuote %s", (_n, input, want) => {
    expect(goQuote(input)).toBe(want);
  });

  it("escapeHtml touches only the five characters Go escapes", () => {
    expect(escapeHtml(`a&b<c>d"e'f/g`)).toBe("a&amp;b&lt;c&gt;d&#34;e&#39;f/g");
  });
});

describe("activator kubelet health responder (knative-spec.md a.3 P5)", () => {
  const kubelet = { "User-Agent": "kube-probe/1.30" };
  const rows: {
    name: string;
    headers: Record<string, string>;
    state: ActivatorHealthState;
    status?: number;
    body?: string;
  }[] = [
    { name: "non-kubelet passes on", headers: { "User-Agent": "chromium/1" }, state: { terminating: false } },
    {
      name: "healthy without a check",
      headers: kubelet,
      state: { terminating: false },
      status: 200,
      body: "",
    },
    {
      name: "healthy check",
      headers: kubelet,
      state: { terminating: false, check: () => undefined },
      status: 200,
      body: "",
    },
    {
      name: "K-Kubelet-Probe counts",
      headers: { "K-Kubelet-Probe": "1" },
      state: { terminating: false, check: () => null },
      status: 200,
      body: "",
    },
    {
      name: "failing check",
      headers: kubelet,
      state: { terminating: false, check: () => "not ready" },
      status: 500,
      body: "not ready\n",
    },
    {
      name: "async failing check",
      headers: kubelet,
      state: { terminating: false, check: async () => "ws down" },
      status: 500,
      body: "ws down\n",
    },
    {
      name: "throwing check",
      headers: kubelet,
      state: {
        terminating: false,
        check: () => {
          throw new Error("boom");
        },
      },
      status: 500,
      body: "boom\n",
    },
    {
      name: "after SIGTERM",
      headers: kubelet,
      state: { terminating: true, check: () => undefined },
      status: 500,
      body: `${SIGTERM_MESSAGE}\n`,
    },
  ];
  it.each(rows)("$name", async ({ headers, state, status, body }) => {
    const res = await activatorHealthResponse(req(headers), state);
    if (status === undefined) {
      expect(res).toBeUndefined();
      return;
    }
    expect(res?.status).toBe(status);
    expect(await res?.text()).toBe(body);
  });

  it("SIGTERM text is Knative's", () => {
    expect(SIGTERM_MESSAGE).toBe("received SIGTERM from kubelet");
  });
});
