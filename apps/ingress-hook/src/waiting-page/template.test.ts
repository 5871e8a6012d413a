import { describe, expect, it } from "vitest";
import { waitingPageResponse } from "./page.js";
import { parseTemplate, renderTemplate } from "./template.js";

const html = { refresh: "<meta>", script: "<script></script>" };
const text = { service: "hello", namespace: "default", expected: "about 3 s", retryAfter: "3" };

describe("parseTemplate", () => {
  it.each([
    { name: "no placeholder", src: "<p>hi</p>", out: "<p>hi</p>" },
    {
      name: "placeholders with spaces",
      src: "<h1>{{ service }}</h1>{{script}}",
      out: "<h1>hello</h1><script></script>",
    },
    {
      name: "every placeholder",
      src: "{{service}}{{namespace}}{{expected}}{{retryAfter}}{{refresh}}",
      out: "hellodefaultabout 3 s3<meta>",
    },
  ])("$name", ({ src, out }) => {
    const t = parseTemplate(src);
    if (!t.ok) throw new Error(t.error);
    expect(renderTemplate(t.template, { text, html })).toBe(out);
  });
  it.each([
    {
      name: "unknown placeholder",
      src: "<p>\n  {{servce}}</p>",
      error: /line 2, column 3: unknown placeholder \{\{servce\}\}; known: service, /u,
    },
    { name: "never closed", src: "<p>{{service</p>", error: /line 1, column 4: "\{\{" is never closed/u },
    { name: "too large", src: "x".repeat(70_000), error: /at most 65536/u },
  ])("refuses $name", ({ src, error }) => {
    const t = parseTemplate(src);
    expect(t.ok).toBe(false);
    if (!t.ok) expect(t.error).toMatch(error);
  });
});

describe("waitingPageResponse", () => {
  it("escapes what it interpolates and answers 503, no-store, Retry-After", async () => {
    const r = waitingPageResponse("GET", {
      service: '<img src=x onerror="alert(1)">',
      namespace: "default",
      expectedMs: 3200,
      retryAfterSeconds: 4,
    });
    expect(r.status).toBe(503);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.headers.get("retry-after")).toBe("4");
    expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const body = await r.text();
    expect(body).not.toContain("<img");
    expect(body).toContain("&#60;img src=x onerror=&#34;alert(1)&#34;&#62; is starting");
    expect(body).toContain('<html lang="en">');
    expect(body).toContain('aria-live="polite"');
    expect(body).toContain("about 4 s");
    expect(body).toContain('<noscript><meta http-equiv="refresh" content="4"></noscript>');
    expect(body).not.toMatch(/src="http|href="http/u);
  });
  it("HEAD gets the head only", async () => {
    const r = waitingPageResponse("HEAD", {
      service: "a",
      namespace: "b",
      expectedMs: undefined,
      retryAfterSeconds: 1,
    });
    expect(r.status).toBe(503);
    expect(await r.text()).toBe("");
  });
});
