/**
 * Host rewriting across the activator and queue-proxy hops, passthrough LB, and the activator's backend
 * probe request (knative-spec.md a.1, P2, d.1), each driven through the code that runs in production:
 * the activator's `activatorUpstreamHeaders` and `passthroughLbHeaders` (@thaw/protocol), the queue-proxy's
 * own request-head scanner (@thaw/queue-proxy), the backend prober's `probeDestination` (@thaw/activation).
 */
import { probeDestination } from "@thaw/activation";
import { activatorUpstreamHeaders, passthroughLbHeaders, type RevisionId } from "@thaw/protocol";
import { scanRequestHead } from "@thaw/queue-proxy";
import { fail, type Outcome, type Vector } from "../types.js";
import { checkKeys } from "./probe-protocol-check.js";

type Rec = Record<string, unknown>;
/** A request as one hop receives it: its Host and the other headers (names as given). */
interface Hop {
  host: string | null;
  headers: [string, string][];
}
/** Where the activator sends when a vector does not say: a pod's queue-proxy. */
const DEFAULT_UPSTREAM = "10.0.0.1:8012";

function requestOf(r: Rec): Hop | string {
  if (typeof r.host !== "string") return "input.request.host must be a string";
  const headers = (r.headers ?? {}) as Record<string, string>;
  return { host: r.host, headers: Object.entries(headers).filter(([k]) => k.toLowerCase() !== "host") };
}

function revisionOf(v: unknown): RevisionId | undefined | string {
  if (v === undefined || v === null || v === false) return undefined;
  const r = v as Rec;
  if (typeof r.namespace !== "string" || typeof r.name !== "string")
    return "passthroughLb must be {namespace, name}";
  return { namespace: r.namespace, name: r.name };
}

/** The activator's hop: what it sends to the pod (or, with passthrough LB, to `<rev>-private.<ns>`). */
function activatorHop(req: Hop, hop: Rec): Hop | string {
  const rev = revisionOf(hop.passthroughLb);
  if (typeof rev === "string") return rev;
  let h = activatorUpstreamHeaders(new Headers(req.headers), req.host ?? "");
  if (rev) h = passthroughLbHeaders(h, rev);
  // The upstream URL's authority becomes Host unless passthrough LB names one.
  const host = h.get("host") ?? (typeof hop.upstream === "string" ? hop.upstream : DEFAULT_UPSTREAM);
  h.delete("host");
  return { host, headers: [...h] };
}

/** The queue-proxy's hop: the header list its request scanner sends to the user container. */
function queueProxyHop(req: Hop): Hop {
  const raw: string[] = req.host === null ? [] : ["Host", req.host];
  for (const [k, val] of req.headers) raw.push(k, val);
  const up = scanRequestHead(raw).upstream;
  let host: string | null = null;
  const headers: [string, string][] = [];
  for (let i = 0; i < up.length; i += 2) {
    const name = up[i] as string;
    if (name.toLowerCase() === "host") host = up[i + 1] as string;
    else headers.push([name, up[i + 1] as string]);
  }
  return { host, headers };
}

/** The named headers of `hop` (case-insensitive), null for absent ones. */
function picked(hop: Hop, wanted: unknown): Rec {
  const h = new Headers(hop.headers);
  return Object.fromEntries(Object.keys((wanted ?? {}) as Rec).map((k) => [k, h.get(k)]));
}

function runHops(start: Hop, hops: unknown): Hop | string {
  if (!Array.isArray(hops) || hops.length === 0) return "input.hops must be a non-empty list";
  let cur = start;
  for (const [i, hop] of (hops as Rec[]).entries()) {
    const next =
      hop.via === "activator"
        ? activatorHop(cur, hop)
        : hop.via === "queue-proxy"
          ? queueProxyHop(cur)
          : undefined;
    if (next === undefined) return `hops[${i}].via must be "activator" or "queue-proxy"`;
    if (typeof next === "string") return `hops[${i}]: ${next}`;
    cur = next;
  }
  return cur;
}

/** `request` through `hops` -> the Host and headers the last receiver sees. */
export function hostRewrite(v: Vector): Outcome {
  const start = requestOf(v.input.request as Rec);
  if (typeof start === "string") return fail(start);
  const end = runHops(start, v.input.hops);
  if (typeof end === "string") return fail(end);
  const actual: Rec = { host: end.host };
  if ("headers" in v.expect) actual.headers = picked(end, v.expect.headers);
  return checkKeys(v.expect, actual);
}

/** The activator handler alone: what reaches the upstream (`upstreamHeaders`, `upstreamHost`). */
export function activatorUpstream(v: Vector): Outcome {
  const start = requestOf(v.input.request as Rec);
  if (typeof start === "string") return fail(start);
  const end = runHops(start, [
    { via: "activator", passthroughLb: v.input.passthroughLb, upstream: v.input.upstream },
  ]);
  if (typeof end === "string") return fail(end);
  const actual: Rec = { upstreamHeaders: picked(end, v.expect.upstreamHeaders) };
  if ("upstreamHost" in v.expect) actual.upstreamHost = end.host;
  return checkKeys(v.expect, actual);
}

/** One backend probe (P2) of `dest`: the request the activator's prober sends, and its verdict. */
export async function backendProbeRequest(v: Vector): Promise<Outcome> {
  const rev = revisionOf(v.input.passthroughLb);
  if (typeof rev === "string") return fail(rev);
  const answer = (v.input.answer ?? { status: 200, body: "queue" }) as { status: number; body?: string };
  let seen: { url: string; method: string; headers: Headers } | undefined;
  const outcome = await probeDestination(
    async (url, init) => {
      seen = { url, method: init.method ?? "GET", headers: new Headers(init.headers) };
      return new Response(answer.body ?? "", { status: answer.status });
    },
    String(v.input.dest),
    new AbortController().signal,
    typeof v.input.scheme === "string" ? v.input.scheme : "http",
    rev,
  );
  if (!seen) return fail("the prober sent no request");
  const s = seen;
  const actual: Rec = {
    url: s.url,
    method: s.method,
    headers: Object.fromEntries(
      Object.keys((v.expect.headers ?? {}) as Rec).map((k) => [k, s.headers.get(k)]),
    ),
    healthy: outcome.healthy,
    notMesh: outcome.notMesh,
  };
  return checkKeys(v.expect, actual);
}
