import {
  type GrpcAction,
  type HttpGetAction,
  type IntOrString,
  type Issue,
  type Probe,
  type Result,
  type TcpSocketAction,
  TIMING_FIELDS,
} from "./types.js";

/**
 * Encodes a probe byte-for-byte as Go's `json.Marshal(corev1.Probe)` does: fields in struct order, zero
 * scalars and empty strings left out, `port` always written, strings escaped the Go way.
 */
export function encodeProbe(probe: Probe): string {
  const parts: string[] = [];
  if (probe.exec) {
    const cmd = probe.exec.command?.length ? `"command":[${probe.exec.command.map(goString).join(",")}]` : "";
    parts.push(`"exec":{${cmd}}`);
  }
  if (probe.httpGet) parts.push(`"httpGet":${httpGet(probe.httpGet)}`);
  if (probe.tcpSocket) parts.push(`"tcpSocket":${tcpSocket(probe.tcpSocket)}`);
  if (probe.grpc) parts.push(`"grpc":${grpc(probe.grpc)}`);
  for (const f of TIMING_FIELDS) {
    const v = probe[f];
    if (v) parts.push(`"${f}":${v}`);
  }
  if (probe.terminationGracePeriodSeconds !== undefined) {
    parts.push(`"terminationGracePeriodSeconds":${probe.terminationGracePeriodSeconds}`);
  }
  return `{${parts.join(",")}}`;
}

/**
 * Encodes `SERVING_READINESS_PROBE`: one probe as an object, a list as an array. A missing probe or an
 * empty list is an issue, as the reconciler refuses to encode them.
 */
export function encodeProbeEnv(probes: Probe | readonly Probe[] | null | undefined): Result<string> {
  if (probes === null || probes === undefined) return bad("cannot encode a missing probe");
  if (!Array.isArray(probes)) return { ok: true, value: encodeProbe(probes as Probe) };
  if (probes.length === 0) return bad("cannot encode an empty probe list");
  if (probes.some((p) => p === null || p === undefined)) return bad("cannot encode a missing probe");
  return { ok: true, value: `[${probes.map(encodeProbe).join(",")}]` };
}

function bad(message: string): { ok: false; issues: Issue[] } {
  return { ok: false, issues: [{ path: "", message }] };
}

function port(p: IntOrString | undefined): string {
  return typeof p === "string" ? goString(p) : String(p ?? 0);
}

function httpGet(h: HttpGetAction): string {
  const parts: string[] = [];
  if (h.path) parts.push(`"path":${goString(h.path)}`);
  parts.push(`"port":${port(h.port)}`);
  if (h.host) parts.push(`"host":${goString(h.host)}`);
  if (h.scheme) parts.push(`"scheme":${goString(h.scheme)}`);
  if (h.httpHeaders?.length) {
    const hs = h.httpHeaders.map((x) => `{"name":${goString(x.name)},"value":${goString(x.value)}}`);
    parts.push(`"httpHeaders":[${hs.join(",")}]`);
  }
  return `{${parts.join(",")}}`;
}

function tcpSocket(t: TcpSocketAction): string {
  return t.host ? `{"port":${port(t.port)},"host":${goString(t.host)}}` : `{"port":${port(t.port)}}`;
}

// corev1.GRPCAction.Service is a *string without omitempty: Go writes an unset service as null.
function grpc(g: GrpcAction): string {
  const service = g.service === undefined ? "null" : goString(g.service);
  return `{"port":${g.port ?? 0},"service":${service}}`;
}

/**
 * A JSON string as Go writes it: like JSON.stringify, but `<`, `>`, `&`, U+2028 and U+2029 are escaped
 * (Go's HTML-safe default) and lone surrogates become U+FFFD, since Go encodes UTF-8, not UTF-16.
 */
export function goString(s: string): string {
  const wellFormed = s.replace(
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    "\uFFFD",
  );
  return JSON.stringify(wellFormed).replace(/[<>&\u2028\u2029]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}
