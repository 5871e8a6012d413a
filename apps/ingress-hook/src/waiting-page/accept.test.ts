import { describe, expect, it } from "vitest";
import { prefersHtml } from "./accept.js";

describe("prefersHtml", () => {
  it.each([
    {
      name: "Chromium's navigation",
      accept:
        "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8",
      want: true,
    },
    {
      name: "Firefox's navigation",
      accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
      want: true,
    },
    { name: "absent", accept: null, want: false },
    { name: "curl's wildcard", accept: "*/*", want: false },
    { name: "text/* wildcard alone", accept: "text/*", want: false },
    { name: "JSON first", accept: "application/json, text/html;q=0.5", want: false },
    { name: "HTML refused with q=0", accept: "text/html;q=0, */*", want: false },
    { name: "equal weights: HTML is not beaten", accept: "application/json, text/html", want: true },
    { name: "case and spaces", accept: " TEXT/HTML ; Q=0.9 , */*;q=0.1", want: true },
    { name: "a malformed q is not trusted", accept: "text/html;q=2", want: false },
    { name: "garbage", accept: "html, ;;;, /", want: false },
    { name: "parameters besides q", accept: "text/html;level=1;q=0.7, application/json;q=0.6", want: true },
  ])("$name", ({ accept, want }) => {
    expect(prefersHtml(accept)).toBe(want);
  });
});
