import { describe, expect, it } from "vitest";
import { forwardedFromXForwarded, forwardedHeaderFor, withForwardedShim } from "./forwarded.js";
import { parseForwarded } from "./forwarded-list.js";

describe("Forwarded synthesis (knative-spec.md c.8)", () => {
  const rows: {
    name: string;
    xff?: string;
    xfh?: string;
    xfp?: string;
    fwd?: string;
    want: string | undefined;
  }[] = [
    { name: "nothing", want: undefined },
    { name: "one node", xff: "1.2.3.4", want: "for=1.2.3.4" },
    {
      name: "all three",
      xff: "127.0.0.1, ::1",
      xfh: "h",
      xfp: "p",
      want: 'for=127.0.0.1;host=h;proto=p, for="[::1]"',
    },
    { name: "xff only", xff: "127.0.0.1, ::1", want: 'for=127.0.0.1, for="[::1]"' },
    { name: "xff and xfh", xff: "127.0.0.1, ::1", xfh: "h", want: 'for=127.0.0.1;host=h, for="[::1]"' },
    { name: "xfh only", xfh: "h", want: "host=h" },
    { name: "xfp only", xfp: "p", want: "proto=p" },
    { name: "xfh and xfp", xfh: "h", xfp: "p", want: "host=h;proto=p" },
    { name: "empty nodes", xff: ",,,", want: "for=, for=, for=" },
    { name: "trailing comma adds no node", xff: "a,", want: "for=a" },
    { name: "IPv6 first", xff: "2001:db8::1", xfp: "https", want: 'for="[2001:db8::1]";proto=https' },
    { name: "empty first node: no separator before host", xff: ",b", xfh: "h", want: "for=host=h, for=b" },
    { name: "spaces trimmed", xff: "  a  ,   b ", want: "for=a, for=b" },
    { name: "existing header wins", xff: "a", xfh: "h", fwd: "for=x", want: "for=x" },
  ];
  it.each(rows)("$name", ({ xff, xfh, xfp, fwd, want }) => {
    const h = new Headers();
    if (xff !== undefined) h.set("X-Forwarded-For", xff);
    if (xfh !== undefined) h.set("X-Forwarded-Host", xfh);
    if (xfp !== undefined) h.set("X-Forwarded-Proto", xfp);
    if (fwd !== undefined) h.set("Forwarded", fwd);
    expect(forwardedHeaderFor(h)).toBe(want);
    const shimmed = withForwardedShim(h);
    expect(shimmed.get("Forwarded")).toBe(want ?? null);
    if (fwd === undefined) expect(forwardedFromXForwarded(xff ?? "", xfh ?? "", xfp ?? "")).toBe(want);
  });
});

describe("parseForwarded: parameter names are data", () => {
  it("keeps `__proto__=x` as an own parameter and leaves the element's prototype alone", () => {
    const [el] = parseForwarded("__proto__=x;for=1.2.3.4") ?? [];
    expect(el && Object.hasOwn(el, "__proto__")).toBe(true);
    expect(el && Object.getOwnPropertyDescriptor(el, "__proto__")?.value).toBe("x");
    expect(el && Object.getPrototypeOf(el)).toBe(Object.prototype);
    expect(el?.for).toBe("1.2.3.4");
    expect(parseForwarded("__proto__=x;__proto__=y")).toBeUndefined();
  });
});
