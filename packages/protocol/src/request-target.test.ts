import { describe, expect, it } from "vitest";
import { redactTarget, targetHasUserinfo } from "./request-target.js";

describe("targetHasUserinfo", () => {
  it.each([
    ["/x?a=b@c", false],
    ["*", false],
    ["http://beta.localhost:9/x", false],
    ["http://beta.localhost/x?u=a@b", false],
    ["http://user:pw@beta.localhost:9/x", true],
    ["HTTP://user@host/", true],
    ["user:pw@host:443", true],
    ["host:443", false],
  ])("%s -> %s", (target, has) => expect(targetHasUserinfo(target)).toBe(has));
});

describe("redactTarget", () => {
  it.each([
    ["/x?token=abc&y=1", "/x?token=REDACTED&y=1"],
    ["/x?access_token=abc#f", "/x?access_token=REDACTED#f"],
    ["/x?Token=abc", "/x?Token=REDACTED"],
    ["http://user:pw@beta.localhost:9/x?token=s3cr3t", "http://beta.localhost:9/x?token=REDACTED"],
    ["/plain?q=1", "/plain?q=1"],
    ["/plain", "/plain"],
  ])("%s -> %s", (target, out) => expect(redactTarget(target)).toBe(out));
});
