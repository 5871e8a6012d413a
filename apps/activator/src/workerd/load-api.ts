import { apiErrorResponse, BODY_LIMITS, bodyErrorResponse, ErrorCode, readBoundedText } from "@thaw/protocol";
import type { StaticRevision } from "../revisions-json.js";
import type { EdgeExtras } from "./do-coordinator.js";
import type { WorkerEnv } from "./env.js";

/** One revision's load as a gateway isolate measured it (see EdgeScaling.load). */
export interface LoadReport {
  namespace: string;
  name: string;
  /** Average concurrency times the milliseconds it covers. */
  requestMs: number;
  requestCount: number;
}

/**
 * `POST /v1/load` `{loads: LoadReport[]}`: the gateway's warm requests never reach this Worker, so it
 * reports what it sent straight to the origin, for the edge decider. 204 once recorded; 404 when
 * EDGE_DECIDER is off, which tells the gateway to stop reporting.
 */
export async function handleLoad(
  request: Request,
  env: WorkerEnv,
  byId: Map<string, StaticRevision>,
  extras: Map<string, EdgeExtras>,
): Promise<Response> {
  if (env.EDGE_DECIDER !== "true") {
    return apiErrorResponse(ErrorCode.ERR_UNKNOWN_REVISION, "EDGE_DECIDER is off: no load reports wanted");
  }
  let loads: unknown;
  try {
    loads = (JSON.parse(await readBoundedText(request, BODY_LIMITS.load)) as { loads?: unknown }).loads;
  } catch (err) {
    const tooLarge = bodyErrorResponse(err);
    if (tooLarge) return tooLarge;
    loads = undefined;
  }
  if (!Array.isArray(loads)) {
    return apiErrorResponse(
      ErrorCode.ERR_BAD_REQUEST,
      "body: must be JSON {loads: [{namespace, name, requestMs, requestCount}]}",
    );
  }
  await loadInto(env, byId, extras, loads);
  return new Response(null, { status: 204 });
}

/** Adds each report to its revision's edge decider (in its Durable Object); unknown revisions are skipped. */
export async function loadInto(
  env: WorkerEnv,
  byId: Map<string, StaticRevision>,
  extras: Map<string, EdgeExtras>,
  loads: readonly Partial<LoadReport>[],
): Promise<void> {
  await Promise.all(
    loads.map(async (l) => {
      const id = `${l.namespace}/${l.name}`;
      const rev = byId.get(id);
      if (!rev || typeof l.requestMs !== "number" || typeof l.requestCount !== "number") return;
      const { endpoints, namespace, name, ...config } = rev;
      const stub = env.REVISION_ACTIVATOR.get(env.REVISION_ACTIVATOR.idFromName(id));
      await stub.load(l.requestMs, l.requestCount, {
        key: { namespace, name },
        config,
        endpoints,
        ...extras.get(id),
      });
    }),
  );
}
