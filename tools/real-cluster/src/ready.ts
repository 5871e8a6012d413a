import { request } from "node:https";
import type { Component } from "./process.js";

/** One HTTPS GET: status and up to 4 KiB of body (0 when nothing answers). */
export function probe(
  url: string,
  o: { ca?: Buffer; token?: string; timeoutMs?: number } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        ...(o.ca ? { ca: o.ca } : { rejectUnauthorized: false }),
        headers: o.token ? { authorization: `Bearer ${o.token}` } : {},
        timeout: o.timeoutMs ?? 2000,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          if (body.length < 4096) body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        res.on("error", () => resolve({ status: 0, body }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (e) => resolve({ status: 0, body: e.message }));
    req.end();
  });
}

/**
 * Polls `check` every 200 ms until it returns true, the component exits, or `deadline` (epoch ms) passes;
 * either failure throws with the component's last 30 log lines.
 */
export async function waitReady(
  c: Component,
  what: string,
  check: () => Promise<boolean>,
  deadline: number,
): Promise<void> {
  let last = "";
  while (Date.now() < deadline) {
    if (c.done) {
      throw new Error(
        `${c.name} exited (${await c.exited}) before ${what}. Last lines of ${c.logPath}:\n${c.tail(30)}`,
      );
    }
    try {
      if (await check()) return;
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `${c.name} was not ${what} in time${last ? ` (${last})` : ""}. Last lines of ${c.logPath}:\n${c.tail(30)}`,
  );
}
