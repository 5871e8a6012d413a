import { type HeaderSource, headersOf, isKProbe } from "./classify.js";
import { Header } from "./headers.js";
import { plainError, plainText } from "./http-text.js";

/** Body of the 400 a network probe without a hash gets (Go's `http.Error` adds the newline). */
export const MISSING_HASH_MESSAGE = 'a probe request must contain a non-empty "K-Network-Hash" header';

/** The answer to a network probe that is known to be one: 200 echoing the hash, or 400 without one. */
export function networkProbeAnswer(source: HeaderSource): Response {
  const hash = headersOf(source).get(Header.networkHash) ?? "";
  if (hash === "") return plainError(400, MISSING_HASH_MESSAGE);
  const response = plainText(200);
  response.headers.set(Header.networkHash, hash);
  return response;
}

/**
 * The ingress network-probe responder (knative-spec.md a.3 P4): answers `K-Network-Probe: probe`
 * requests and returns undefined ("pass on") for every other request.
 */
export function answerNetworkProbe(req: Request): Response | undefined {
  return isKProbe(req) ? networkProbeAnswer(req) : undefined;
}

/** A copy of `headers` without `K-Network-Hash`, which must not reach the user's app. */
export function withoutNetworkHash(headers: Headers): Headers {
  const copy = new Headers(headers);
  copy.delete(Header.networkHash);
  return copy;
}

/**
 * The request to pass on after {@link answerNetworkProbe} declined it: the same request (body untouched)
 * without `K-Network-Hash`. Returns `req` itself when there was nothing to strip.
 */
export function stripNetworkHash(req: Request): Request {
  if (!req.headers.has(Header.networkHash)) return req;
  return new Request(req, { headers: withoutNetworkHash(req.headers) });
}
