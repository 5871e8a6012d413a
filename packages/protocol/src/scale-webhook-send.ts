import type { Clock } from "@thaw/clock";
import { type ScaleRequest, signScaleWebhook } from "./scale-webhook.js";

/** Options of {@link sendScaleWebhook}. */
export interface SendScaleOptions {
  url: string;
  secret: string;
  request: ScaleRequest;
  fetch: (req: Request) => Promise<Response>;
  clock: Clock;
  /** Tries in all, the first included (default 4). */
  attempts?: number;
  /** First pause between tries, doubled each time (default 200 ms: 200, 400, 800). */
  backoffMs?: number;
  /** Deadline of one try (default 5 s). */
  timeoutMs?: number;
}

/**
 * POSTs one signed scale request, retrying network failures, 429 and 5xx with exponential backoff; each
 * try is signed afresh, so a retry is never refused as a replay. Rejects with the last failure; a 4xx
 * other than 429 is final (a wrong secret or body does not get better by repeating it).
 */
export async function sendScaleWebhook(o: SendScaleOptions): Promise<{ attempts: number; status: number }> {
  const body = JSON.stringify(o.request);
  const attempts = o.attempts ?? 4;
  let pause = o.backoffMs ?? 200;
  let last = "";
  for (let i = 1; i <= attempts; i++) {
    const headers = new Headers(await signScaleWebhook(o.secret, body, o.clock.now()));
    headers.set("content-type", "application/json");
    const ac = new AbortController();
    const timer = o.clock.setTimeout(() => ac.abort(new Error("timed out")), o.timeoutMs ?? 5000);
    try {
      const res = await o.fetch(new Request(o.url, { method: "POST", headers, body, signal: ac.signal }));
      const text = await res.text().catch(() => "");
      if (res.ok) return { attempts: i, status: res.status };
      last = `answered ${res.status}${text ? `: ${text.slice(0, 200)}` : ""}`;
      if (res.status < 500 && res.status !== 429) break;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    } finally {
      o.clock.clearTimeout(timer);
    }
    if (i < attempts) {
      await o.clock.sleep(pause);
      pause *= 2;
    }
  }
  throw new Error(`scale webhook ${o.url} failed for ${o.request.namespace}/${o.request.name}: ${last}`);
}
