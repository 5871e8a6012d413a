import { releaseAtBodyEnd } from "@thaw/activation";
import { Header, TRACEPARENT_HEADER, TRACESTATE_HEADER } from "@thaw/protocol";
import type { Context, MiddlewareHandler } from "hono";
import type { Allow, Cold, Decision } from "./decision/decision.js";
import { endDecisionSpan } from "./decision/decision-span.js";
import type { IngressHook, Released } from "./decision/hook.js";
import { isInternalHeader, UPSTREAM_HEADER } from "./decision/internal-headers.js";
import { type HookRequest, normalizeHost, pathOf } from "./decision/request-view.js";
import { type ConnectionEnded, leftWhileHeld } from "./left-while-held.js";
import { denyResponse } from "./respond.js";
import { activateOrPage, answerPoll, isPoll, type KeepAlive, pageFor } from "./waiting-page/hold.js";

/** Hono variables the middleware sets for the handlers after it. */
export interface ThawIngressVariables {
  /** The allow decision: revision, chosen upstream, warm or not. */
  thaw: Allow;
}

/** Options of {@link thawIngress}. */
export interface ThawIngressOptions {
  hook: IngressHook;
  /**
   * Read the original host from X-Forwarded-Host (only behind a proxy that sets it itself); otherwise the
   * Host header, then the URL.
   */
  trustForwardedHost?: boolean;
  /** Add X-Thaw-Upstream to the request passed on, for an origin proxy that routes by it (default false). */
  setUpstreamHeader?: boolean;
  /**
   * Workers only: while a held request waits for a pod slot, keep a timer armed every this many ms. workerd
   * cancels a request that awaits nothing but a promise another request resolves (it takes it as hung, 500);
   * a pending timer keeps it alive until the slot comes. Unset (Node): no timer.
   */
  holdTickMs?: number;
  /** Node gateways: tells from the connection itself whether a held client has left (see `leftWhileHeld`). */
  connectionEnded?: ConnectionEnded;
}

/**
 * The hook in-process, for gateways written with Hono (Workers or Node): deny, or strip internal headers,
 * record the decision in `c.var.thaw` and call `next()`. Warm requests never leave the process. A decision
 * `via: "activator"` (held while cold, or proxy mode) must be sent to `c.var.thaw.upstream`, the activator:
 * the request passed on then carries the revision in `Knative-Serving-Namespace`/`-Revision`. With no
 * activator upstream, requests to a revision with a per-pod limit instead take a pod slot
 * (`IngressHook.releaseHeld`), waiting for one when all are taken, kept until the response's body has ended.
 */
export function thawIngress<
  E extends { Variables: ThawIngressVariables } = { Variables: ThawIngressVariables },
>(options: ThawIngressOptions): MiddlewareHandler<E> {
  const { hook, connectionEnded: ended } = options;
  return async (ctx, next) => {
    // Generic over the gateway's own bindings; only `thaw` is touched here.
    const c = ctx as unknown as Context<{ Variables: ThawIngressVariables }>;
    const raw = c.req.raw;
    // Decided once: by `passWarm` here, or before Hono saw the request (the Workers entry's warm path).
    let ahead = takeDecided(raw);
    if (!ahead) {
      const warm = passWarm(hook, raw, c.req.path, options);
      if (warm) {
        c.set("thaw", warm.allow);
        return warm.release ? passHolding(warm.release, c, next) : next();
      }
      ahead = takeDecided(raw);
    }
    const view = middlewareView(raw, c.req.path, options.trustForwardedHost === true);
    const span = hook.startSpan(view);
    const first = ahead ?? hook.tryDecide(view, hook.clock.now());
    const keepAlive = workersKeepAlive(c);
    if (first.kind !== "deny" && isPoll(view) && hook.waitingPage(first.key)) {
      const polled = await answerPoll(hook, first, keepAlive);
      return polled instanceof Response ? polled : denyResponse(polled);
    }
    const decided =
      first.kind === "cold" ? await activateOrPage(hook, first, view, span, true, keepAlive) : first;
    if (decided === "page") {
      span?.end();
      return pageFor(hook, first as Cold, raw.method);
    }
    if (span) endDecisionSpan(span, decided);
    if (decided.kind === "deny") return denyResponse(decided);
    // Without an activator route, a request waits here for a pod slot when all are taken (see releaseHeld);
    // with one free (or no per-pod limit) it passes with no await.
    const now = hook.tryRelease(decided);
    const released = now ?? (await ticking(hook.releaseHeld(decided, raw.signal), options.holdTickMs));
    if ("kind" in released) return denyResponse(released);
    // A request held (cold, or for a slot) whose client left meanwhile is dropped, its slot given back.
    const left =
      first.kind === "cold" || now === undefined
        ? await leftWhileHeld(raw.signal, decided.key, ended && (() => ended(c)))
        : undefined;
    if (left) {
      released.release?.();
      return denyResponse(left);
    }
    const d = released.allow;
    c.set("thaw", d);
    const setUpstream = options.setUpstreamHeader === true && d.upstream !== undefined;
    const viaActivator = d.via === "activator";
    if (setUpstream || viaActivator || span || hasInternalHeader(raw.headers)) {
      const headers = new Headers();
      raw.headers.forEach((v, k) => {
        if (!isInternalHeader(k)) headers.append(k, v);
      });
      if (setUpstream) headers.set(UPSTREAM_HEADER, d.upstream as string);
      if (viaActivator) {
        headers.set(Header.namespace, d.revision.namespace);
        headers.set(Header.revision, d.revision.name);
      }
      if (span) {
        // The next hop (activator or pod) continues under the decision, not beside it.
        const c = span.carrier();
        headers.set(TRACEPARENT_HEADER, c.traceparent);
        if (c.tracestate) headers.set(TRACESTATE_HEADER, c.tracestate);
        else headers.delete(TRACESTATE_HEADER);
      }
      c.req.raw = new Request(raw, { headers });
    }
    const release = released.release;
    return release ? passHolding(release, c, next) : next();
  };
}

/** Calls the next handler while the request holds a pod slot (see {@link holdingSlot}). */
async function passHolding(release: () => void, c: Context, next: () => Promise<void>): Promise<void> {
  c.res = await holdingSlot(release, async () => {
    await next();
    return c.res;
  });
}

/**
 * The response of `send` with the pod slot `release` gives back kept until its body has ended: the pod is
 * busy until then, not only until the head arrives, or a request let in at the head would find it still
 * full. Given back at once if `send` throws.
 */
export async function holdingSlot(release: () => void, send: () => Promise<Response>): Promise<Response> {
  let res: Response;
  try {
    res = await send();
  } catch (err) {
    release();
    throw err;
  }
  return releaseAtBodyEnd(res, release);
}

/** Decisions `passWarm` made but did not act on, for the middleware to take up instead of deciding again. */
const decidedAhead = new WeakMap<Request, Decision | Cold>();

function takeDecided(raw: Request): Decision | Cold | undefined {
  const d = decidedAhead.get(raw);
  if (d) decidedAhead.delete(raw);
  return d;
}

/**
 * A request {@link thawIngress} would pass on as it came, decided without waiting: warm (the cache says a
 * pod is ready), straight to a pod with its slot free or no per-pod limit, no internal header to strip, no
 * header to add, no trace, no waiting-page poll. Returns its release (the allow decision, and the slot to
 * give back when the response's body has ended, if it took one); undefined when the request needs the
 * middleware's whole path, having taken nothing. The Workers entry serves warm requests through this before
 * Hono's routing.
 */
export function passWarm(
  hook: IngressHook,
  raw: Request,
  path: string,
  options: Pick<ThawIngressOptions, "trustForwardedHost" | "setUpstreamHeader">,
): Released | undefined {
  if (hook.traced || options.setUpstreamHeader === true || hasInternalHeader(raw.headers)) return undefined;
  const view = middlewareView(raw, path, options.trustForwardedHost === true);
  const d = hook.tryDecide(view, hook.clock.now());
  const plain = d.kind === "allow" && d.via === "pod" && !(isPoll(view) && hook.waitingPage(d.key));
  const released = plain ? hook.tryRelease(d) : undefined;
  // Deciding has effects (counters, wake hints, the pod picker's turn): the middleware takes this one up.
  if (!released) decidedAhead.set(raw, d);
  return released;
}

/** `ctx.waitUntil` on Workers (see KeepAlive); undefined on Node, where nothing ends with the request. */
function workersKeepAlive(c: Context): KeepAlive | undefined {
  let ctx: { waitUntil(p: Promise<unknown>): void } | undefined;
  try {
    ctx = c.executionCtx;
  } catch {
    // Hono throws when the runtime gave no execution context (Node).
    return undefined;
  }
  return (p) => ctx?.waitUntil(p.catch(() => {}));
}

/** Settles as `p` does; meanwhile, with `tickMs`, a timer is always pending (see `holdTickMs`). */
async function ticking<T>(p: Promise<T>, tickMs: number | undefined): Promise<T> {
  if (tickMs === undefined || tickMs <= 0) return p;
  let settled = false;
  const out = p.finally(() => {
    settled = true;
  });
  while (!settled) await Promise.race([out, new Promise((r) => setTimeout(r, tickMs))]);
  return out;
}

/** The decision's view of a request the gateway received itself. */
export function middlewareView(raw: Request, path: string, trustForwardedHost: boolean): HookRequest {
  const h = raw.headers;
  const fwd = trustForwardedHost ? h.get("x-forwarded-host") : null;
  const host = fwd ?? h.get("host") ?? hostOfUrl(raw.url);
  return { method: raw.method, host: normalizeHost(host), path: pathOf(path), headers: h };
}

function hasInternalHeader(headers: Headers): boolean {
  let found = false;
  headers.forEach((_v, k) => {
    if (!found && isInternalHeader(k)) found = true;
  });
  return found;
}

function hostOfUrl(url: string): string {
  const start = url.indexOf("://") + 3;
  const end = url.indexOf("/", start);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}
