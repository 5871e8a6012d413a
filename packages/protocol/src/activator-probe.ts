import { isKubeletProbe, probeHeaderValue } from "./classify.js";
import { ProbeValue } from "./headers.js";
import { plainError, plainText } from "./http-text.js";

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "'": "&#39;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&#34;",
};

/** Go's `html.EscapeString`: the five characters it replaces, with the same entities. */
export function escapeHtml(text: string): string {
  return text.replace(/[&'<>"]/g, (c) => HTML_ESCAPES[c] ?? c);
}

const GO_ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  '"': '\\"',
  "\t": "\\t",
  "\n": "\\n",
  "\r": "\\r",
};

/** Double-quotes `text` the way Go's `%q` does for header-safe text (backslash, quote, control bytes). */
export function goQuote(text: string): string {
  let inner = "";
  for (const c of text) {
    const code = c.charCodeAt(0);
    const named = GO_ESCAPES[c];
    if (named) inner += named;
    else if (code < 0x20 || code === 0x7f) inner += `\\x${code.toString(16).padStart(2, "0")}`;
    else inner += c;
  }
  return `"${inner}"`;
}

/**
 * The activator's probe responder (knative-spec.md a.3, activator step 3): `K-Network-Probe: activator`
 * gets 200 `activator`, any other non-empty value 400 naming it; no probe header = pass on (undefined).
 */
export function activatorProbeResponse(req: Request): Response | undefined {
  const value = probeHeaderValue(req);
  if (value === "") return undefined;
  if (value === ProbeValue.activator) return plainText(200, ProbeValue.activator);
  return plainError(400, `unexpected probe header value: ${goQuote(escapeHtml(value))}`);
}

/** Health of the activator as its kubelet probe sees it: an error text when unhealthy, else nothing. */
export type ActivatorHealthCheck = () => string | null | undefined | Promise<string | null | undefined>;

/** Body of the kubelet probe's 500 once the activator got SIGTERM. */
export const SIGTERM_MESSAGE = "received SIGTERM from kubelet";

/** State the activator's kubelet health responder reads. */
export interface ActivatorHealthState {
  /** True once SIGTERM arrived: from then on the probe fails so endpoints drop this pod. */
  terminating: boolean;
  /** E.g. the state of the stats connection to the autoscaler; absent = always healthy. */
  check?: ActivatorHealthCheck | null;
}

/**
 * The activator's kubelet health responder (knative-spec.md a.3 P5): for networking-kubelet probes,
 * 500 `received SIGTERM from kubelet` while terminating, 500 with the check's error text, else 200
 * empty; every other request passes on (undefined).
 */
export async function activatorHealthResponse(
  req: Request,
  state: ActivatorHealthState,
): Promise<Response | undefined> {
  if (!isKubeletProbe(req)) return undefined;
  if (state.terminating) return plainError(500, SIGTERM_MESSAGE);
  let error: string | null | undefined;
  try {
    error = await state.check?.();
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  return error ? plainError(500, error) : plainText(200);
}
