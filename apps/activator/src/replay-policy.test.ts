import { describe, expect, it } from "vitest";
import { type BodyMode, canReplay } from "./replay-policy.js";

const idem = new Headers({ "idempotency-key": "k1" });
const plain = new Headers();

describe("canReplay", () => {
  it.each<{
    name: string;
    method: string;
    headers: Headers;
    body: BodyMode;
    sent: boolean;
    touched: boolean;
    want: boolean;
  }>([
    {
      name: "connect refused, POST buffered",
      method: "POST",
      headers: plain,
      body: "buffered",
      sent: false,
      touched: false,
      want: true,
    },
    {
      name: "reset after send, POST buffered",
      method: "POST",
      headers: plain,
      body: "buffered",
      sent: true,
      touched: false,
      want: false,
    },
    {
      name: "reset after send, POST with Idempotency-Key",
      method: "POST",
      headers: idem,
      body: "buffered",
      sent: true,
      touched: false,
      want: true,
    },
    {
      name: "reset after send, GET",
      method: "GET",
      headers: plain,
      body: "none",
      sent: true,
      touched: false,
      want: true,
    },
    {
      name: "reset after send, PUT",
      method: "put",
      headers: plain,
      body: "buffered",
      sent: true,
      touched: false,
      want: true,
    },
    {
      name: "reset after send, PATCH",
      method: "PATCH",
      headers: plain,
      body: "buffered",
      sent: true,
      touched: false,
      want: false,
    },
    {
      name: "streamed body untouched, refused",
      method: "POST",
      headers: plain,
      body: "stream",
      sent: false,
      touched: false,
      want: true,
    },
    {
      name: "streamed body touched",
      method: "PUT",
      headers: idem,
      body: "stream",
      sent: false,
      touched: true,
      want: false,
    },
    {
      name: "streamed body, sent, idempotent",
      method: "PUT",
      headers: idem,
      body: "stream",
      sent: true,
      touched: false,
      want: false,
    },
  ])("$name", ({ method, headers, body, sent, touched, want }) => {
    expect(canReplay({ method, headers, body, sent, streamTouched: touched })).toBe(want);
  });
});
