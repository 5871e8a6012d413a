import { ManualClock } from "@thaw/clock/testing";
import {
  activatorHealthResponse,
  activatorProbeResponse,
  activatorUpstreamHeaders,
  activeEndpointNotFoundResponse,
  answerNetworkProbe,
  Drainer,
  ErrorCode,
  errorTextResponse,
  forwardedHeaderFor,
  isKProbe,
  isKubeletProbe,
  isProbe,
  probeHeaderValue,
  proxyHeaderValue,
  queueHealthResponse,
  ROUTE_TAG_ATTRIBUTE,
  resolveRevision,
  revisionKey,
  revisionNotFoundMessage,
  routeTagLabel,
  stripNetworkHash,
} from "@thaw/protocol";
import { dispatch, type Kind } from "../shape.js";
import { type Adapter, fail, type Outcome, pass, type Vector } from "../types.js";
import { checkKeys, pickHeaders, requestFrom } from "./probe-protocol-check.js";
import { drainMechanics } from "./probe-protocol-drainer.js";
import { activatorUpstream, backendProbeRequest, hostRewrite } from "./probe-protocol-hops.js";

type Headers_ = Record<string, string> | undefined;
type Expect = Record<string, unknown>;

async function observe(res: Response, expect: Expect): Promise<Record<string, unknown>> {
  const body = await res.text();
  const out: Record<string, unknown> = { status: res.status, body, bodyTrimmed: body.trim() };
  if (expect.responseHeaders) out.responseHeaders = pickHeaders(res, expect.responseHeaders as Expect);
  if (expect.headers) out.headers = pickHeaders(res, expect.headers as Expect);
  return out;
}

/** networking's probe handler in front of an inner handler that reports which probe headers reached it. */
async function networkProbeLayer(v: Vector): Promise<Outcome> {
  const req = requestFrom(v.input.headers as Headers_);
  let innerCalled = false;
  let saw: Record<string, boolean> = {};
  const answer = answerNetworkProbe(req);
  let res: Response;
  if (answer) res = answer;
  else {
    const passed = stripNetworkHash(req);
    innerCalled = true;
    saw = {
      "K-Network-Probe": passed.headers.has("K-Network-Probe"),
      "K-Network-Hash": passed.headers.has("K-Network-Hash"),
    };
    res = new Response("Inner Body");
  }
  const expect = v.expect as Expect;
  const actual = await observe(res, expect);
  actual.innerCalled = innerCalled;
  if (expect.innerSawHeaders) actual.innerSawHeaders = pickKeys(saw, expect.innerSawHeaders as Expect);
  // The ingress prober treats any answer but 200 as an error for that try (knative-spec.md a.3 P4).
  actual.proberVerdict = res.status === 200 ? "ok" : "error";
  return checkKeys(expect, actual);
}

function pickKeys(from: Record<string, unknown>, keys: Expect): Record<string, unknown> {
  return Object.fromEntries(Object.keys(keys).map((k) => [k, from[k]]));
}

/** Runs `responder`; undefined = pass on to a next handler that answers 200 with no body. */
async function withNext(
  v: Vector,
  responder: (req: Request) => Response | undefined | Promise<Response | undefined>,
  nullBodyUnchecked: boolean,
): Promise<Outcome> {
  const req = requestFrom(v.input.headers as Headers_, { method: v.input.method as string | undefined });
  const answer = await responder(req);
  const res = answer ?? new Response(null, { status: 200 });
  const expect = { ...(v.expect as Expect) };
  // These vectors' notes say the Go test checks status only: a null body is "not asserted".
  if (nullBodyUnchecked && expect.body === null) delete expect.body;
  const actual = await observe(res, expect);
  actual.passedToNext = answer === undefined;
  return checkKeys(expect, actual);
}

async function drainerKProbe(v: Vector): Promise<Outcome> {
  const drainer = new Drainer({ clock: new ManualClock() });
  let innerCalls = 0;
  const requests = v.input.requests as { headers: Headers_ }[];
  const wanted = (v.expect as { responses: (Expect | null)[] }).responses;
  for (const [i, r] of requests.entries()) {
    const res = await drainer.handle(requestFrom(r.headers), () => {
      innerCalls++;
      return new Response("inner");
    });
    const want = wanted[i];
    if (want) {
      const out = checkKeys(want, await observe(res, want));
      if (out.status === "fail") return fail(`responses[${i}]: ${out.reason}`);
    }
  }
  return checkKeys({ innerCalls: v.expect.innerCalls }, { innerCalls });
}

async function drainerHealthCheck(v: Vector): Promise<Outcome> {
  if (v.input.healthCheck !== "replies 400 for /healthz else 202") return fail("unknown health check");
  const drainer = new Drainer({
    clock: new ManualClock(),
    healthCheckUserAgentPrefixes: v.input.healthCheckUAPrefixes as string[],
    healthCheck: (req) =>
      new Response(null, { status: new URL(req.url).pathname === "/healthz" ? 400 : 202 }),
  });
  let innerCalled = false;
  const req = requestFrom(v.input.headers as Headers_, { path: v.input.path as string });
  const res = await drainer.handle(req, () => {
    innerCalled = true;
    return new Response("inner");
  });
  return checkKeys(v.expect as Expect, { status: res.status, innerCalled });
}

async function revisionLookup(v: Vector): Promise<Outcome> {
  const input = v.input as {
    existingRevisions: string[];
    clusterDomain?: string;
    request: { url: string; headers?: Record<string, string> };
  };
  const req = requestFrom(input.request.headers, { url: input.request.url });
  const id = resolveRevision(req, { clusterDomain: input.clusterDomain });
  if (id && input.existingRevisions.includes(revisionKey(id))) {
    return checkKeys(v.expect as Expect, { status: 200, resolvedRevision: revisionKey(id) });
  }
  const res = activeEndpointNotFoundResponse(revisionNotFoundMessage(id?.name ?? ""));
  return checkKeys(v.expect as Expect, await observe(res, v.expect as Expect));
}

const THROTTLER_ERRORS: Record<string, string> = {
  "context deadline exceeded": ErrorCode.ERR_DEADLINE,
  "pending request queue full": ErrorCode.ERR_QUEUE_FULL,
};

/** The activation handler with a simulated throttler and upstream (the activator app drives the real ones). */
async function activationHandler(v: Vector): Promise<Outcome> {
  const input = v.input as {
    throttlerError: string | null;
    upstream: string | null;
    request: { host: string };
  };
  const expect = v.expect as Expect;
  const forwarded = activatorUpstreamHeaders(new Headers(), input.request.host);
  let res: Response;
  if (input.throttlerError !== null) {
    const code = THROTTLER_ERRORS[input.throttlerError];
    if (!code) return fail(`unknown throttler error ${input.throttlerError}`);
    res = errorTextResponse(code, input.throttlerError);
  } else {
    const ok = /^(\d{3}) '(.*)'$/s.exec(input.upstream ?? "");
    const broken = /^transport error '(.*)'$/s.exec(input.upstream ?? "");
    if (ok) res = new Response(ok[2], { status: Number(ok[1]) });
    else if (broken) res = errorTextResponse(ErrorCode.ERR_UPSTREAM, broken[1] ?? "");
    else return fail(`unknown upstream ${input.upstream}`);
  }
  const actual = await observe(res, expect);
  if (expect.upstreamHeadersWhenCalled) {
    actual.upstreamHeadersWhenCalled = Object.fromEntries(
      Object.keys(expect.upstreamHeadersWhenCalled as Expect).map((k) => [k, forwarded.get(k)]),
    );
  }
  return checkKeys(expect, actual);
}

function activatorHealth(v: Vector): Promise<Outcome> {
  const hc = v.input.healthCheck as string | null;
  if (hc !== null && hc !== "ok" && !hc.startsWith("error: "))
    return Promise.resolve(fail(`unknown healthCheck ${hc}`));
  const check = hc === null ? undefined : () => (hc === "ok" ? undefined : hc.slice("error: ".length));
  return withNext(v, (req) => activatorHealthResponse(req, { terminating: false, check }), false);
}

const headersOf = (v: Vector) => new Headers((v.input.headers as Headers_) ?? {});
/** What `observe` reads off a response, so any of it may be expected. */
const RESPONSE = ["status", "body", "bodyTrimmed", "headers", "responseHeaders"];

/**
 * A `{headers} -> {value}` vector reads the Knative header it sends (K-Network-Probe or K-Proxy-Request);
 * when it sends neither, both readers must give the expected value.
 */
function headerValue(v: Vector): Outcome {
  const names = Object.keys((v.input.headers as Headers_) ?? {}).map((n) => n.toLowerCase());
  const h = headersOf(v);
  const readers = [
    ["k-network-probe", probeHeaderValue],
    ["k-proxy-request", proxyHeaderValue],
  ] as const;
  const named = readers.filter(([n]) => names.includes(n));
  for (const [, read] of named.length > 0 ? named : readers) {
    const out = checkKeys(v.expect as Expect, { value: read(h) });
    if (out.status === "fail") return out;
  }
  return pass;
}

async function queueHealth(v: Vector): Promise<Outcome> {
  const p = v.input.prober;
  if (p !== null && p !== "true" && p !== "false") return fail(`unknown prober ${JSON.stringify(p)}`);
  const prober = p === null ? null : () => p === "true";
  const req = requestFrom(v.input.headers as Headers_, { method: v.input.method as string | undefined });
  const expect = v.expect as Expect;
  return checkKeys(expect, await observe(await queueHealthResponse(req, prober), expect));
}

/** Every kind probe-protocol.json holds, by the shape of its input and expect. */
export const kinds: readonly Kind[] = [
  {
    name: "networking isKubeletProbe",
    input: ["headers"],
    expect: ["isKubeletProbe"],
    run: (v) => checkKeys(v.expect, { isKubeletProbe: isKubeletProbe(headersOf(v)) }),
  },
  {
    name: "networking isProbe",
    input: ["headers"],
    expect: ["isProbe"],
    run: (v) => checkKeys(v.expect, { isProbe: isProbe(headersOf(v)) }),
  },
  {
    name: "drainer isKProbe",
    input: ["headers"],
    expect: ["isKProbe"],
    run: (v) => checkKeys(v.expect, { isKProbe: isKProbe(headersOf(v)) }),
  },
  { name: "Knative header value", input: ["headers"], expect: ["value"], run: headerValue },
  {
    name: "Forwarded header synthesis",
    input: ["headers"],
    expect: ["forwarded"],
    run: (v) => checkKeys(v.expect, { forwarded: forwardedHeaderFor(headersOf(v)) ?? "" }),
  },
  {
    name: "route-tag label",
    input: ["headers"],
    expect: ["attribute"],
    run: (v) => checkKeys(v.expect, { attribute: { [ROUTE_TAG_ATTRIBUTE]: routeTagLabel(headersOf(v)) } }),
  },
  {
    name: "ingress network-probe responder",
    input: ["headers", "inner"],
    expect: [],
    optionalExpect: [...RESPONSE, "innerCalled", "innerSawHeaders", "proberVerdict"],
    run: networkProbeLayer,
  },
  {
    name: "queue-proxy health handler",
    input: ["headers", "prober"],
    optionalInput: ["method"],
    expect: ["status"],
    optionalExpect: RESPONSE,
    run: queueHealth,
  },
  {
    name: "activator probe responder",
    input: ["headers"],
    optionalInput: ["method"],
    expect: ["status", "passedToNext"],
    optionalExpect: RESPONSE,
    run: (v) => withNext(v, activatorProbeResponse, true),
  },
  {
    name: "activator kubelet health handler",
    input: ["headers", "healthCheck"],
    optionalInput: ["method"],
    expect: ["status", "passedToNext"],
    optionalExpect: RESPONSE,
    run: activatorHealth,
  },
  {
    name: "drainer probe echo",
    input: ["requests"],
    expect: ["innerCalls", "responses"],
    run: drainerKProbe,
  },
  {
    name: "drainer default quiet period",
    input: ["quietPeriod"],
    expect: ["effectiveQuietPeriodSec"],
    run: (v) => {
      const d = new Drainer({ clock: new ManualClock(), quietPeriodMs: v.input.quietPeriod as number });
      return checkKeys(v.expect, { effectiveQuietPeriodSec: d.quietPeriodMs / 1000 });
    },
  },
  {
    name: "drainer health-check user agents",
    input: ["headers", "healthCheck", "healthCheckUAPrefixes", "path"],
    expect: ["status", "innerCalled"],
    run: drainerHealthCheck,
  },
  {
    name: "drainer timer script",
    input: ["kubeletProbeHeaders", "quietPeriodMs", "steps"],
    expect: [],
    optionalExpect: ["innerCalls", "allDrainCallsReturnAfterFinalAdvance"],
    run: drainMechanics,
  },
  {
    name: "activator revision lookup",
    input: ["existingRevisions", "request"],
    optionalInput: ["clusterDomain"],
    expect: ["status"],
    optionalExpect: [...RESPONSE, "resolvedRevision"],
    run: revisionLookup,
  },
  {
    name: "activation handler",
    input: ["throttlerError", "upstream", "request"],
    expect: ["status"],
    optionalExpect: [...RESPONSE, "upstreamHeadersWhenCalled"],
    run: activationHandler,
  },
  {
    name: "host rewrite across hops",
    input: ["request", "hops"],
    expect: ["host"],
    optionalExpect: ["headers"],
    run: hostRewrite,
  },
  {
    name: "activator upstream headers",
    input: ["request"],
    optionalInput: ["passthroughLb", "upstream"],
    expect: ["upstreamHeaders"],
    optionalExpect: ["upstreamHost"],
    run: activatorUpstream,
  },
  {
    name: "activator backend probe request",
    input: ["dest"],
    optionalInput: ["passthroughLb", "scheme", "answer"],
    expect: ["url", "headers"],
    optionalExpect: ["method", "healthy", "notMesh"],
    run: backendProbeRequest,
  },
];

/** Drives conformance/knative/probe-protocol.json through @thaw/protocol's public API. */
export const adapter: Adapter = { run: (v) => dispatch(kinds, v) };
