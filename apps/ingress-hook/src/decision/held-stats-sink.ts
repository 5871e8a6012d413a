import { encodeWireStatMessages, PROTOBUF_CONTENT_TYPE } from "@thaw/protocol";
import type { FetchLike } from "./activator-client.js";
import type { HeldStatsSink } from "./held-demand.js";

/** Options of {@link activatorStatsSink}. */
export interface ActivatorStatsSinkOptions {
  /** The activator the hook activates through, e.g. `http://127.0.0.1:8012`. */
  baseUrl: string;
  fetch: FetchLike;
  /** Bearer token of the activator's `/v1/*`. */
  token?: string;
  /** The Stat's pod name: this hook replica. */
  podName: string;
}

/**
 * Held-request stats sent to the activator's `POST /v1/stats`, which passes them on to the autoscaler on its
 * own stat link (docs/demand.md): the standalone hook needs no address of the autoscaler. Fire and forget: a
 * report that fails is not sent again, since the next one a second later supersedes it; an activator that
 * answers 404 passes no stats on, and the sink stops asking it.
 */
export function activatorStatsSink(
  o: ActivatorStatsSinkOptions,
): HeldStatsSink & { readonly failures: number } {
  const url = new URL("/v1/stats", o.baseUrl).toString();
  const headers: Record<string, string> = { "content-type": PROTOBUF_CONTENT_TYPE };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  let off = false;
  let failures = 0;
  return {
    podName: o.podName,
    get failures() {
      return failures;
    },
    send(messages) {
      if (off) return;
      const body = encodeWireStatMessages(messages);
      o.fetch(new Request(url, { method: "POST", headers, body })).then(
        async (res) => {
          await res.body?.cancel();
          if (res.status === 404) off = true;
          else if (!res.ok) failures++;
        },
        () => {
          failures++;
        },
      );
    },
  };
}
