import { callerDeadlineMs } from "@thaw/activation";
import type { Clock } from "@thaw/clock";
import type { Allow, Cold, Decision, Deny } from "../decision/decision.js";
import type { IngressHook } from "../decision/hook.js";
import type { HookRequest } from "../decision/request-view.js";
import { prefersHtml } from "./accept.js";
import {
  POLL_HEADER,
  POLL_VALUE,
  pollReadyResponse,
  pollWaitingResponse,
  waitingPageResponse,
} from "./page.js";
import type { Template } from "./template.js";

/** A service's waiting page (thaw.config.yaml `waitingPage`); absent = off. */
export interface WaitingPage {
  /** How long a browser's request is held before it gets the page instead (ms). */
  afterMs: number;
  /** The service's own template; the built-in page when absent. */
  template?: Template;
}

/**
 * Keeps what a request started running after the request was answered: on Workers, a request's I/O ends
 * with it (`ctx.waitUntil` extends it), and the activation the page's request led is awaited by others.
 */
export type KeepAlive = (work: Promise<unknown>) => void;

/** How long one poll of the page is held at most waiting for the revision (below every proxy's read timeout). */
export const POLL_HOLD_MS = 15_000;

/** Whether the request is a person's page load that may get the waiting page: GET or HEAD preferring HTML. */
export function wantsPage(req: HookRequest): boolean {
  return (req.method === "GET" || req.method === "HEAD") && prefersHtml(req.headers.get("accept"));
}

/** Whether the request is the waiting page's own poll. */
export function isPoll(req: HookRequest): boolean {
  return req.method === "GET" && req.headers.get(POLL_HEADER) === POLL_VALUE;
}

/**
 * Activates a cold revision for this request (the caller's deadline counts, see IngressHook.activate);
 * when the request qualifies for the revision's waiting page and it is not ready within the page's
 * threshold, resolves "page" instead, leaving the activation to go on.
 */
export function activateOrPage(
  hook: IngressHook,
  cold: Cold,
  req: HookRequest,
  span?: Parameters<IngressHook["activate"]>[1],
  pages = true,
  keepAlive?: KeepAlive,
): Promise<Decision | "page"> {
  const activation = hook.activate(cold, span, callerDeadlineMs(req.headers));
  const page = hook.waitingPage(cold.key);
  if (!pages || !page || !wantsPage(req)) return activation;
  return within(activation, page.afterMs, hook.clock).then((d) => {
    if (d !== undefined) return d;
    keepAlive?.(activation);
    return "page";
  });
}

/** The waiting page of a revision, as the person sees it. */
export function pageFor(hook: IngressHook, at: Cold | Allow, method: string): Response {
  return waitingPageResponse(method, hook.pageFacts(at.key, at.revision), hook.waitingPage(at.key)?.template);
}

/**
 * The page's poll: ready at once for a warm revision; for a cold one, held until it is ready (ready), its
 * activation ends otherwise (the deny, which the page then shows by reloading) or POLL_HOLD_MS passed
 * (waiting). It tells only this URL's revision's readiness and expected start, nothing else.
 */
export async function answerPoll(
  hook: IngressHook,
  first: Cold | Allow,
  keepAlive?: KeepAlive,
): Promise<Response | Deny> {
  if (first.kind === "allow") return pollReadyResponse();
  const activation = hook.activate(first);
  const d = await within(activation, POLL_HOLD_MS, hook.clock);
  if (d === undefined) {
    keepAlive?.(activation);
    return pollWaitingResponse(hook.pageFacts(first.key, first.revision));
  }
  return d.kind === "deny" ? d : pollReadyResponse();
}

/** `p`'s value if it settles within `ms`, else undefined (p keeps running; its rejection is dropped). */
function within<T>(p: Promise<T>, ms: number, clock: Clock): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    const t = clock.setTimeout(() => resolve(undefined), ms);
    p.then(
      (v) => {
        clock.clearTimeout(t);
        resolve(v);
      },
      (err: unknown) => {
        clock.clearTimeout(t);
        reject(err);
      },
    );
  });
}
