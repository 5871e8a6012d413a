/**
 * Execution vectors of readiness-probe.json: each server description becomes a real server on 127.0.0.1
 * (see @thaw/readiness/node/testing), placeholders are replaced by its address, and the probes run through
 * the Node transport on the system clock.
 */
import { systemClock } from "@thaw/clock";
import {
  createProber,
  detectHttpProtocol,
  type HttpGetAction,
  type Probe,
  parseProbe,
  runProbeAttempt,
} from "@thaw/readiness";
import { nodeTransport } from "@thaw/readiness/node";
import {
  type Answer,
  closedPort,
  type GrpcAnswer,
  type GrpcTestServer,
  type HttpTestServer,
  startGrpcHealthServer,
  startHttpServer,
  startTcpServer,
  type TcpTestServer,
} from "@thaw/readiness/node/testing";
import { diff } from "../compare.js";
import type { Kind } from "../shape.js";
import { fail, type Outcome, pass, type Vector } from "../types.js";

type Server =
  | { kind: "http"; s: HttpTestServer }
  | { kind: "tcp"; s: TcpTestServer }
  | { kind: "grpc"; s: GrpcTestServer }
  | { kind: "closed"; port: number };

/** gRPC health answers a server description can name: a serving status, or a gRPC error code by name. */
function grpcBehaviour(text: string): GrpcAnswer | undefined {
  const m = /^(SERVING|NOT_SERVING|UNKNOWN|SERVICE_UNKNOWN)(?: after (\d+)ms)?$/.exec(text);
  if (m) {
    const status = m[1] as "SERVING" | "NOT_SERVING" | "UNKNOWN" | "SERVICE_UNKNOWN";
    return m[2] ? { delayMs: Number(m[2]), status } : status;
  }
  if (text === "unimplemented") return { code: 12, message: "unknown service" };
  return undefined;
}

/** Turns a described HTTP behaviour ("500 for the first 3 requests, then 200") into an answer per request. */
export function httpBehaviour(text: string): ((n: number) => Answer) | undefined {
  let m = /^(\d{3})$/.exec(text);
  if (m) return () => ({ status: Number(m?.[1]) });
  m = /^(\d{3}) after (\d+)(ms|s)$/.exec(text);
  if (m) {
    const delayMs = Number(m[2]) * (m[3] === "s" ? 1000 : 1);
    const status = Number(m[1]);
    return () => ({ status, delayMs });
  }
  m = /^(\d{3}) for the first (?:request|(\d+) requests), then (\d{3})$/.exec(text);
  if (m) {
    const first = Number(m[1]);
    const count = m[2] ? Number(m[2]) : 1;
    const then = Number(m[3]);
    return (n) => ({ status: n < count ? first : then });
  }
  m = /^(\d{3}) for request #(\d+), otherwise (\d{3})$/.exec(text);
  if (m) {
    const special = Number(m[1]);
    const at = Number(m[2]) - 1;
    const other = Number(m[3]);
    return (n) => ({ status: n === at ? special : other });
  }
  return undefined;
}

async function startServer(desc: unknown): Promise<Server | string> {
  // A port that was just free: connecting to it is refused, as on a pod whose app has not bound yet.
  if (desc === "nothing listening" || desc === "closed port")
    return { kind: "closed", port: await closedPort() };
  const d = desc as { http?: string; tcp?: string; grpc?: string };
  if (typeof d?.grpc === "string") {
    const g = grpcBehaviour(d.grpc);
    if (!g) return `unknown grpc server behaviour ${JSON.stringify(d.grpc)}`;
    return { kind: "grpc", s: await startGrpcHealthServer(() => g) };
  }
  if (typeof d?.http === "string") {
    const b = httpBehaviour(d.http);
    if (!b) return `unknown http server behaviour ${JSON.stringify(d.http)}`;
    return { kind: "http", s: await startHttpServer({ http1: b }) };
  }
  if (d?.tcp === "listening") return { kind: "tcp", s: await startTcpServer() };
  const m =
    typeof d?.tcp === "string" &&
    /^accept (\d+) connections?, close listener for (\d+)ms, reopen same port and accept \d+ more$/.exec(
      d.tcp,
    );
  if (m) {
    const s = await startTcpServer();
    const first = Number(m[1]);
    const pauseMs = Number(m[2]);
    s.onConnection = (count) => {
      if (count !== first) return;
      void s.stop().then(() => setTimeout(() => void s.restart(), pauseMs));
    };
    return { kind: "tcp", s };
  }
  return `unknown server description ${JSON.stringify(desc)}`;
}

function portOf(servers: Server[], i: number): number | string {
  const s = servers[i];
  if (!s) return `no server #${i + 1}`;
  return s.kind === "closed" ? s.port : s.s.port;
}

/** Replaces `<server>`, `<port>`, `<server2>`, `<listener port>`, ... by the address of the matching server. */
function substitute(value: unknown, servers: Server[]): unknown {
  if (Array.isArray(value)) return value.map((x) => substitute(x, servers));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, substitute(x, servers)]));
  }
  if (typeof value !== "string" || !value.startsWith("<")) return value;
  const m = /^<(server|port|listener port|server port as string)(\d*)>$/.exec(value);
  if (!m) return value;
  const i = m[2] ? Number(m[2]) - 1 : 0;
  if (m[1] === "server") return "127.0.0.1";
  if (m[1] === "server port as string") return String(portOf(servers, i));
  return portOf(servers, i);
}

/** Requests (HTTP), accepted connections (TCP) or Check calls (gRPC) the server saw. */
function requestsOf(s: Server | undefined): number {
  if (s?.kind === "http") return s.s.requests.length;
  if (s?.kind === "tcp") return s.s.accepted;
  if (s?.kind === "grpc") return s.s.calls.length;
  return 0;
}

function stop(s: Server): Promise<void> | undefined {
  if (s.kind === "http" || s.kind === "grpc") return s.s.close();
  if (s.kind === "tcp") return s.s.stop();
  return undefined;
}

async function proberVector(v: Vector): Promise<Outcome> {
  const servers: Server[] = [];
  try {
    for (const d of v.input.servers as unknown[]) {
      const s = await startServer(d);
      if (typeof s === "string") return fail(s);
      servers.push(s);
    }
    const probes: Probe[] = [];
    for (const raw of substitute(v.input.probes, servers) as unknown[]) {
      const r = parseProbe(raw);
      if (!r.ok) return fail(`probe does not parse: ${JSON.stringify(r.issues)}`);
      probes.push(r.value);
    }
    // The Go tests shorten the 10 s poll timeout; the vector notes say to what.
    const short = /poll timeout shortened to (\d+)ms/.exec(v.notes ?? "");
    const lines: string[] = [];
    const prober = createProber({
      probes,
      transport: nodeTransport,
      clock: systemClock,
      log: (l) => lines.push(l),
      ...(short ? { aggressive: { maxDurationMs: Number(short[1]) } } : {}),
    });
    // Concurrent callers join the run in flight and share its result (b.4): one execution for all.
    const callers = Number(v.input.concurrentCallers ?? 1);
    const results = await Promise.all(Array.from({ length: callers }, () => prober.probe()));
    const ready = results.every((r) => r === results[0]) ? results[0] : `callers disagree: ${results}`;
    const got: Record<string, unknown> = { ready };
    if ("serverRequests" in v.expect) got.serverRequests = servers.map(requestsOf);
    if ("grpcServicesAsked" in v.expect)
      got.grpcServicesAsked = servers.flatMap((x) =>
        x.kind === "grpc" ? x.s.calls.map((c) => c.service) : [],
      );
    if ("log" in v.expect) got.log = lines.join("\n");
    if (v.expect.logLinesContaining) {
      got.logLinesContaining = Object.fromEntries(
        Object.keys(v.expect.logLinesContaining as object).map((k) => [
          k,
          lines.filter((l) => l.includes(k)).length,
        ]),
      );
    }
    const want: Record<string, unknown> = { ...v.expect };
    delete want.minServerRequests;
    delete want.consecutiveSuccessCounterAtLeast;
    const d = diff(got, want);
    if (d) return fail(`${d} (log: ${JSON.stringify(lines)})`);
    const min = v.expect.minServerRequests as number | undefined;
    if (min !== undefined && requestsOf(servers[0]) < min)
      return fail(`server saw ${requestsOf(servers[0])} requests, want >= ${min}`);
    const atLeast = v.expect.consecutiveSuccessCounterAtLeast as number | undefined;
    if (atLeast !== undefined && prober.consecutiveSuccesses(0) < atLeast) {
      return fail(`consecutive successes ${prober.consecutiveSuccesses(0)}, want >= ${atLeast}`);
    }
    return pass;
  } finally {
    await Promise.all(servers.map(stop));
  }
}

const attempt = (probe: Probe, timeoutMs: number, httpMode: "http1" | "h2c" = "http1") =>
  runProbeAttempt(probe, { transport: nodeTransport, clock: systemClock, timeoutMs, httpMode });

async function requestShape(v: Vector): Promise<Outcome> {
  const server = await startHttpServer({ http1: () => ({ status: 200 }) });
  try {
    const action = { ...(v.input.httpGet as HttpGetAction), host: server.host, port: server.port };
    const mode = v.input.maxProtoMajor === 2 ? "h2c" : "http1";
    const r = await attempt({ httpGet: action }, Number(v.input.timeoutMs), mode);
    const seen = server.requests.at(-1);
    const want = v.expect as {
      ready: boolean;
      serverSees: Record<string, unknown>;
      afterServerClosed?: { ready: boolean };
    };
    if (r.ok !== want.ready)
      return fail(`ready ${r.ok}, want ${want.ready}${r.ok ? "" : `: ${r.error.message}`}`);
    if (!seen) return fail("the server saw no request");
    const sees = want.serverSees as {
      path?: string;
      rawQuery?: string;
      headers?: Record<string, string>;
      userAgentPrefix?: string;
    };
    if (sees.path !== undefined && seen.path !== sees.path)
      return fail(`path ${seen.path}, want ${sees.path}`);
    if (sees.rawQuery !== undefined && seen.rawQuery !== sees.rawQuery)
      return fail(`query ${seen.rawQuery}, want ${sees.rawQuery}`);
    for (const [k, val] of Object.entries(sees.headers ?? {})) {
      if (seen.headers[k] !== val) return fail(`header ${k}: ${seen.headers[k]}, want ${val}`);
    }
    const ua = seen.headers["User-Agent"] ?? "";
    if (sees.userAgentPrefix !== undefined && !ua.startsWith(sees.userAgentPrefix))
      return fail(`User-Agent ${ua}`);
    if (want.afterServerClosed) {
      await server.close();
      const again = await attempt({ httpGet: action }, Number(v.input.timeoutMs), mode);
      if (again.ok !== want.afterServerClosed.ready) return fail(`after close: ready ${again.ok}`);
    }
    return pass;
  } finally {
    await server.close();
  }
}

async function singleHttp(v: Vector): Promise<Outcome> {
  const b = httpBehaviour(String(v.input.server));
  if (!b) return fail(`unknown server behaviour ${String(v.input.server)}`);
  const server = await startHttpServer({ http1: b });
  try {
    const r = await attempt({ httpGet: { host: server.host, port: server.port } }, Number(v.input.timeoutMs));
    const d = diff({ ready: r.ok }, v.expect);
    return d ? fail(d) : pass;
  } finally {
    await server.close();
  }
}

async function tcpOpenClosed(v: Vector): Promise<Outcome> {
  const server = await startTcpServer();
  const probe: Probe = { tcpSocket: { host: server.host, port: server.port } };
  const timeoutMs = Number(v.input.socketTimeoutMs);
  const whileListening = (await attempt(probe, timeoutMs)).ok;
  await server.stop();
  const afterClose = (await attempt(probe, timeoutMs)).ok;
  const d = diff({ whileListening, afterClose }, v.expect);
  return d ? fail(d) : pass;
}

async function autoDetect(v: Vector): Promise<Outcome> {
  const i = v.input as {
    serverHTTP1: boolean;
    serverH2C: boolean;
    statusHTTP1: number | null;
    statusHTTP2: number | null;
    timeoutMs: number;
  };
  const server = await startHttpServer({
    http1: i.serverHTTP1 ? () => ({ status: i.statusHTTP1 }) : false,
    h2c: i.serverH2C ? () => ({ status: i.statusHTTP2 }) : false,
  });
  try {
    let detectedProtoMajor = 0;
    let error = false;
    try {
      detectedProtoMajor = await detectHttpProtocol(
        { host: server.host, port: server.port },
        { transport: nodeTransport, clock: systemClock, timeoutMs: i.timeoutMs },
      );
    } catch {
      error = true;
    }
    const d = diff({ detectedProtoMajor, error }, v.expect);
    return d ? fail(d) : pass;
  } finally {
    await server.close();
  }
}

/** The execution kinds of readiness-probe.json (real loopback servers), by shape. */
export const EXECUTION_KINDS: readonly Kind[] = [
  {
    name: "probe execution",
    input: ["probes", "servers"],
    optionalInput: ["concurrentCallers"],
    expect: ["ready"],
    optionalExpect: [
      "log",
      "logLinesContaining",
      "minServerRequests",
      "consecutiveSuccessCounterAtLeast",
      "serverRequests",
      "grpcServicesAsked",
    ],
    run: proberVector,
  },
  {
    name: "http probe request shape",
    input: ["httpGet", "timeoutMs"],
    optionalInput: ["maxProtoMajor"],
    expect: ["ready", "serverSees"],
    optionalExpect: ["afterServerClosed"],
    run: requestShape,
  },
  { name: "single http attempt", input: ["server", "timeoutMs"], expect: ["ready"], run: singleHttp },
  {
    name: "tcp attempt while listening and after close",
    input: ["socketTimeoutMs"],
    expect: ["whileListening", "afterClose"],
    run: tcpOpenClosed,
  },
  {
    name: "http/2 auto-detection",
    input: ["serverHTTP1", "serverH2C", "statusHTTP1", "statusHTTP2", "timeoutMs"],
    expect: ["detectedProtoMajor", "error"],
    run: autoDetect,
  },
];
