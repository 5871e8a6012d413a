import { connectionNamed, isHostName, removeFields } from "./h1-fields.js";
/**
 * One pass over a request's raw headers: the values the queue-proxy decides on, and the header list to
 * send upstream (hop-by-hop and revision headers dropped, `Host` restored from `K-Original-Host`).
 * Content-Length and Transfer-Encoding never go upstream from here: the upstream request is framed from
 * the parsed message (`Downstream.bodyFraming`), so no header stripping can change its framing.
 * Node hands us `rawHeaders` as a flat [name, value, ...] array; scanning it once is much cheaper than
 * building a `Headers` object for every request on the hot path.
 */
export interface RequestHead {
  /** Headers for the upstream request, flat [name, value, ...]. */
  upstream: string[];
  /** `K-Network-Probe` ("" when absent). */
  networkProbe: string;
  /** `K-Network-Hash` ("" when absent). */
  networkHash: string;
  /** `K-Kubelet-Probe` ("" when absent). */
  kubeletProbe: string;
  /** `User-Agent` ("" when absent). */
  userAgent: string;
  /** `K-Proxy-Request` ("" when absent). */
  proxyRequest: string;
  /** `Forwarded` was present. */
  hasForwarded: boolean;
  /** X-Forwarded-For/-Host/-Proto, comma-joined when repeated ("" when absent). */
  xForwardedFor: string;
  xForwardedHost: string;
  xForwardedProto: string;
}

function join(prev: string, next: string): string {
  return prev === "" ? next : `${prev}, ${next}`;
}

/** Scans `raw` (Node's `rawHeaders`) once. */
export function scanRequestHead(raw: string[]): RequestHead {
  const upstream: string[] = [];
  const head: RequestHead = {
    upstream,
    networkProbe: "",
    networkHash: "",
    kubeletProbe: "",
    userAgent: "",
    proxyRequest: "",
    hasForwarded: false,
    xForwardedFor: "",
    xForwardedHost: "",
    xForwardedProto: "",
  };
  let originalHost = "";
  let hostIndex = -1;
  let connectionTokens = "";
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    // Most headers are forwarded untouched: decide on the first letter and length before lower-casing.
    const c = name.charCodeAt(0) | 0x20;
    if (c !== 0x6b && c !== 0x63 && c !== 0x74 && c !== 0x75 && c !== 0x78 && c !== 0x66) {
      if (c === 0x68 && isHostName(name)) hostIndex = upstream.length;
      else if (c === 0x70 && name.length >= 16 && name.toLowerCase().startsWith("proxy-")) {
        const lower = name.toLowerCase();
        if (lower === "proxy-connection" || lower === "proxy-authorization" || lower === "proxy-authenticate")
          continue;
      } else if (c === 0x65 && name.length === 6 && name.toLowerCase() === "expect") continue;
      upstream.push(name, value);
      continue;
    }
    const lower = name.toLowerCase();
    switch (lower) {
      case "k-network-probe":
        head.networkProbe = value;
        break;
      case "k-network-hash":
        head.networkHash = value;
        break;
      case "k-kubelet-probe":
        head.kubeletProbe = value;
        break;
      case "k-proxy-request":
        head.proxyRequest = value;
        break;
      case "k-original-host":
        originalHost = value;
        continue;
      case "knative-serving-revision":
      case "knative-serving-namespace":
        continue;
      case "user-agent":
        head.userAgent = value;
        break;
      case "forwarded":
        head.hasForwarded = true;
        break;
      case "x-forwarded-for":
        head.xForwardedFor = join(head.xForwardedFor, value);
        break;
      case "x-forwarded-host":
        head.xForwardedHost = join(head.xForwardedHost, value);
        break;
      case "x-forwarded-proto":
        head.xForwardedProto = join(head.xForwardedProto, value);
        break;
      case "content-length":
      case "transfer-encoding":
        continue;
      case "connection":
        connectionTokens = join(connectionTokens, value);
        continue;
      case "te":
      case "trailer":
      case "upgrade":
      case "keep-alive":
        continue;
    }
    upstream.push(name, value);
  }
  if (originalHost !== "") {
    if (hostIndex >= 0) upstream[hostIndex + 1] = originalHost;
    else upstream.push("host", originalHost);
  }
  if (connectionTokens !== "" && connectionTokens !== "keep-alive" && connectionTokens !== "close") {
    dropConnectionTokens(head, connectionTokens);
  }
  return head;
}

/** Headers named in `Connection` are hop-by-hop too (RFC 9110 7.6.1), but never Host or framing fields. */
function dropConnectionTokens(head: RequestHead, tokens: string): void {
  const named = connectionNamed(tokens.split(","));
  if (named.size === 0) return;
  removeFields(head.upstream, named);
  // The named fields are gone: what the queue-proxy adds (Forwarded) is decided on what is left, so it
  // still reaches the app.
  if (named.has("forwarded")) head.hasForwarded = false;
  if (named.has("x-forwarded-for")) head.xForwardedFor = "";
  if (named.has("x-forwarded-host")) head.xForwardedHost = "";
  if (named.has("x-forwarded-proto")) head.xForwardedProto = "";
  if (named.has("k-proxy-request")) head.proxyRequest = "";
}

/** The values of field `name` (lower case) in a flat [name, value, ...] list, comma-joined ("" when absent). */
export function fieldValue(fields: string[], name: string): string {
  let joined = "";
  for (let i = 0; i < fields.length; i += 2) {
    if ((fields[i] as string).toLowerCase() === name) joined = join(joined, fields[i + 1] as string);
  }
  return joined;
}
