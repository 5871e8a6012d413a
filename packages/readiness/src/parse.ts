import {
  type Ctx,
  DISALLOWED,
  describe,
  fromJson,
  int32,
  intOrString,
  join,
  object,
  put,
  str,
} from "./parse-helpers.js";
import {
  type ExecAction,
  type GrpcAction,
  type HttpGetAction,
  type HttpHeader,
  type Issue,
  type Probe,
  type Result,
  SCALAR_FIELDS,
  type TcpSocketAction,
  TIMING_FIELDS,
} from "./types.js";

/** How the parser treats keys that `corev1.Probe` does not have. */
export interface ParseOptions {
  /** Prefix for issue paths, e.g. `readinessProbe`. */
  path?: string;
  /**
   * `error` (default) reports them as Knative's webhook would ("must not set the field(s)"); `ignore` drops
   * them as Go's JSON decoder does, which is how the queue-proxy reads its environment.
   */
  unknownFields?: "error" | "ignore";
}

export { DISALLOWED };

/**
 * Parses a Kubernetes Probe (an object or its JSON text) into a typed {@link Probe}. Bad input comes back
 * as issues with a field path; the parser never throws. Zero scalars and empty strings are dropped, the
 * way Go's encoding treats them, so a parsed probe re-encodes exactly as Knative would.
 */
export function parseProbe(input: unknown, options: ParseOptions = {}): Result<Probe> {
  const issues: Issue[] = [];
  const ctx: Ctx = { issues, strict: options.unknownFields !== "ignore" };
  const raw = fromJson(input, options.path ?? "", issues);
  if (issues.length > 0) return { ok: false, issues };
  const probe = readProbe(raw, options.path ?? "", ctx);
  return issues.length > 0 || !probe ? { ok: false, issues } : { ok: true, value: probe };
}

/**
 * Parses one probe or an array of probes (the two shapes of `SERVING_READINESS_PROBE`) into a list.
 * An empty array is an issue: a queue-proxy with nothing to probe would never be ready.
 */
export function parseProbeList(input: unknown, options: ParseOptions = {}): Result<Probe[]> {
  const issues: Issue[] = [];
  const base = options.path ?? "";
  const raw = fromJson(input, base, issues);
  if (issues.length > 0) return { ok: false, issues };
  if (!Array.isArray(raw)) {
    const one = parseProbe(raw, options);
    return one.ok ? { ok: true, value: [one.value] } : one;
  }
  if (raw.length === 0)
    return { ok: false, issues: [{ path: base, message: "expected at least one probe" }] };
  const out: Probe[] = [];
  raw.forEach((item, i) => {
    const r = parseProbe(item, { ...options, path: `${base}[${i}]` });
    if (r.ok) out.push(r.value);
    else issues.push(...r.issues);
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: out };
}

const PROBE_FIELDS = ["exec", "httpGet", "tcpSocket", "grpc", ...SCALAR_FIELDS] as const;

function readProbe(v: unknown, path: string, ctx: Ctx): Probe | undefined {
  const o = object(v, path, ctx, PROBE_FIELDS);
  if (!o) return undefined;
  const p: Probe = {};
  if (o.exec != null) put(p, "exec", readExec(o.exec, join(path, "exec"), ctx));
  if (o.httpGet != null) put(p, "httpGet", readHttpGet(o.httpGet, join(path, "httpGet"), ctx));
  if (o.tcpSocket != null) put(p, "tcpSocket", readTcp(o.tcpSocket, join(path, "tcpSocket"), ctx));
  if (o.grpc != null) put(p, "grpc", readGrpc(o.grpc, join(path, "grpc"), ctx));
  for (const f of TIMING_FIELDS) {
    put(p, f, int32(o[f], join(path, f), ctx));
  }
  // A pointer in Go: an explicit 0 is kept, unlike the plain int32 fields above.
  const grace = o.terminationGracePeriodSeconds;
  if (grace !== undefined && grace !== null) {
    if (typeof grace === "number" && Number.isSafeInteger(grace)) p.terminationGracePeriodSeconds = grace;
    else
      ctx.issues.push({
        path: join(path, "terminationGracePeriodSeconds"),
        message: `expected an integer, got ${describe(grace)}`,
      });
  }
  return p;
}

function readExec(v: unknown, path: string, ctx: Ctx): ExecAction | undefined {
  const o = object(v, path, ctx, ["command"]);
  if (!o) return undefined;
  const e: ExecAction = {};
  if (o.command === undefined || o.command === null) return e;
  if (!Array.isArray(o.command) || o.command.some((c) => typeof c !== "string")) {
    ctx.issues.push({ path: join(path, "command"), message: "expected an array of strings" });
    return e;
  }
  if (o.command.length > 0) e.command = [...(o.command as string[])];
  return e;
}

function readHttpGet(v: unknown, path: string, ctx: Ctx): HttpGetAction | undefined {
  const o = object(v, path, ctx, ["path", "port", "host", "scheme", "httpHeaders"]);
  if (!o) return undefined;
  const h: HttpGetAction = {};
  put(h, "path", str(o.path, join(path, "path"), ctx));
  put(h, "port", intOrString(o.port, join(path, "port"), ctx));
  put(h, "host", str(o.host, join(path, "host"), ctx));
  put(h, "scheme", str(o.scheme, join(path, "scheme"), ctx));
  if (o.httpHeaders !== undefined && o.httpHeaders !== null) {
    const hp = join(path, "httpHeaders");
    if (!Array.isArray(o.httpHeaders)) {
      ctx.issues.push({ path: hp, message: `expected an array, got ${describe(o.httpHeaders)}` });
    } else {
      const headers: HttpHeader[] = [];
      o.httpHeaders.forEach((item, i) => {
        const ip = `${hp}[${i}]`;
        const ho = object(item, ip, ctx, ["name", "value"]);
        if (!ho) return;
        if (typeof ho.name !== "string" || ho.name === "") {
          ctx.issues.push({ path: `${ip}.name`, message: "expected a non-empty header name" });
          return;
        }
        if (ho.value !== undefined && typeof ho.value !== "string") {
          ctx.issues.push({ path: `${ip}.value`, message: `expected a string, got ${describe(ho.value)}` });
          return;
        }
        headers.push({ name: ho.name, value: (ho.value as string | undefined) ?? "" });
      });
      if (headers.length > 0) h.httpHeaders = headers;
    }
  }
  return h;
}

function readTcp(v: unknown, path: string, ctx: Ctx): TcpSocketAction | undefined {
  const o = object(v, path, ctx, ["port", "host"]);
  if (!o) return undefined;
  const t: TcpSocketAction = {};
  put(t, "port", intOrString(o.port, join(path, "port"), ctx));
  put(t, "host", str(o.host, join(path, "host"), ctx));
  return t;
}

function readGrpc(v: unknown, path: string, ctx: Ctx): GrpcAction | undefined {
  const o = object(v, path, ctx, ["port", "service"]);
  if (!o) return undefined;
  const g: GrpcAction = {};
  put(g, "port", int32(o.port, join(path, "port"), ctx));
  // A pointer in Go: "" is a value (set by defaulting), so it is kept.
  if (o.service !== undefined && o.service !== null) {
    if (typeof o.service === "string") g.service = o.service;
    else
      ctx.issues.push({
        path: join(path, "service"),
        message: `expected a string, got ${describe(o.service)}`,
      });
  }
  return g;
}
