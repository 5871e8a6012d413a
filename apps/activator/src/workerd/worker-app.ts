import { BodyBudget } from "@thaw/activation";
import { systemClock } from "@thaw/clock";
import { sendWakeHint } from "@thaw/protocol";
import { checkBearer } from "../api/auth.js";
import { createActivatorApp } from "../app.js";
import { EdgeScaling } from "../edge-scaling.js";
import { createFetchForwarder } from "../fetch-forwarder.js";
import type { RevisionKey } from "../ports.js";
import { type ConfigIssue, parseRevisions, type StaticRevision } from "../revisions-json.js";
import { StaticDirectory } from "../static-sources.js";
import { DoCoordinator, type EdgeExtras } from "./do-coordinator.js";
import { MAX_TIMEOUT_SECONDS, originFromEnv, readEdgeOrigin } from "./edge-origin.js";
import type { WorkerEnv } from "./env.js";
import { relayHeldStats } from "./held-relay.js";
import { handleLoad } from "./load-api.js";

type Parsed = { revisions: StaticRevision[]; extras: Map<string, EdgeExtras>; issues: ConfigIssue[] };
/** Parsed configurations by their text: an isolate parses its configuration once, not per request. */
const parsedByText = new Map<string, Parsed>();
/**
 * The isolate's bound on bodies kept for a replay: the app is built per request here, so the budget lives
 * with the isolate, half of whose 128 MB it may take at most.
 */
const bodyBudget = new BodyBudget({ processBytes: 32 * 1024 * 1024 });

/**
 * REVISIONS plus the origin vars, checked together; any issue answers 500 listing every one. At the edge a
 * revision may carry `readinessPath` (a bare app's plain probe) and its timeout may not pass Knative's 600 s.
 */
function readConfig(env: WorkerEnv): Parsed {
  const text = env.REVISIONS ?? "";
  const originKey = [
    env.THAW_ORIGIN_URL,
    env.THAW_ORIGIN_TOKEN,
    env.SCALE_WEBHOOK_URL,
    env.SCALE_WEBHOOK_SECRET,
  ];
  const cacheKey = JSON.stringify([text, originKey]);
  let parsed = parsedByText.get(cacheKey);
  if (parsed) return parsed;
  const issues: ConfigIssue[] = [];
  const revisions = parseRevisions(text, "REVISIONS", issues);
  const origin = readEdgeOrigin(env, issues);
  const extras = new Map<string, EdgeExtras>();
  const decider = env.EDGE_DECIDER === "true";
  if (decider && origin?.kind === "thaw") {
    issues.push({
      path: "EDGE_DECIDER",
      message:
        'must be "false" with a Thaw origin (its own autoscaler decides); the edge decider needs SCALE_WEBHOOK_URL',
    });
  } else if (env.EDGE_DECIDER !== undefined && !["true", "false", ""].includes(env.EDGE_DECIDER)) {
    issues.push({
      path: "EDGE_DECIDER",
      message: `must be "true" or "false", got ${JSON.stringify(env.EDGE_DECIDER)}`,
    });
  }
  let raw: unknown[] = [];
  try {
    raw = issues.some((i) => i.path === "REVISIONS") ? [] : (JSON.parse(text || "[]") as unknown[]);
  } catch {}
  raw.forEach((item, i) => {
    const r = item as Record<string, unknown>;
    const id = `${r.namespace}/${r.name}`;
    const at = `REVISIONS[${i}]`;
    const ex: EdgeExtras = {};
    if (typeof r.timeoutSeconds === "number" && r.timeoutSeconds > MAX_TIMEOUT_SECONDS) {
      issues.push({
        path: `${at}.timeoutSeconds`,
        message: `must be <= ${MAX_TIMEOUT_SECONDS} (Knative's ceiling)`,
      });
    }
    if (r.readinessPath !== undefined) {
      if (typeof r.readinessPath !== "string" || !r.readinessPath.startsWith("/")) {
        issues.push({ path: `${at}.readinessPath`, message: 'must be a path such as "/healthz"' });
      } else ex.readinessPath = r.readinessPath;
    }
    const auto = r.autoscaling;
    if (auto !== undefined) {
      if (typeof auto !== "object" || auto === null || Array.isArray(auto)) {
        issues.push({ path: `${at}.autoscaling`, message: "must be a mapping of Knative autoscaling keys" });
      } else {
        const made = EdgeScaling.create(id, 0, 0, auto as Record<string, unknown>);
        if (!made.ok)
          for (const x of made.issues) issues.push({ path: `${at}.${x.path}`, message: x.message });
        else ex.autoscaling = auto as Record<string, unknown>;
      }
    }
    extras.set(id, ex);
  });
  if (origin?.kind === "webhook") {
    revisions.forEach((r, i) => {
      if (r.endpoints.length === 0) {
        issues.push({
          path: `REVISIONS[${i}].endpoints`,
          message: 'a webhook origin needs the addresses to probe and forward to, e.g. ["10.0.0.7:8012"]',
        });
      }
    });
  }
  parsed = { revisions, extras, issues };
  parsedByText.set(cacheKey, parsed);
  return parsed;
}

/** The activator Worker: the portable app with Durable-Object gates and a fetch forwarder. */
export const worker = {
  async fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Promise<Response> {
    const { revisions, extras, issues } = readConfig(env);
    if (issues.length > 0) {
      return new Response(
        `activator misconfigured:\n${issues.map((i) => `${i.path}: ${i.message}`).join("\n")}\n`,
        {
          status: 500,
        },
      );
    }
    const byId = new Map(revisions.map((r) => [`${r.namespace}/${r.name}`, r]));
    const directory = new StaticDirectory(
      revisions.map(({ endpoints: _e, namespace, name, ...config }) => ({
        key: { namespace, name },
        config,
      })),
    );
    const endpointsFor = (k: RevisionKey) => byId.get(`${k.namespace}/${k.name}`)?.endpoints ?? [];
    const url = new URL(request.url);
    if (
      request.method === "GET" &&
      url.pathname === "/v1/status" &&
      !request.headers.has("knative-serving-revision")
    ) {
      const denied = checkBearer(request.headers, env.ACTIVATOR_TOKEN || undefined);
      if (denied) return denied;
      // Per revision, from its Durable Object: the edge has no process-wide counters.
      const revisionsStatus = await Promise.all(
        revisions.map(async ({ endpoints: eps, namespace, name, ...config }) => {
          const stub = env.REVISION_ACTIVATOR.get(env.REVISION_ACTIVATOR.idFromName(`${namespace}/${name}`));
          const ex = extras.get(`${namespace}/${name}`) ?? {};
          await stub.configure({ namespace, name }, config, eps, ex.readinessPath, ex.autoscaling);
          return stub.status();
        }),
      );
      return Response.json({ revisions: revisionsStatus });
    }
    if (request.method === "POST" && url.pathname === "/v1/load") {
      const denied = checkBearer(request.headers, env.ACTIVATOR_TOKEN || undefined);
      if (denied) return denied;
      return handleLoad(request, env, byId, extras);
    }
    const origin = originFromEnv(env);
    const thaw =
      origin.ok && origin.value.kind === "thaw"
        ? { baseUrl: origin.value.url, token: origin.value.token, fetch: (r: Request) => fetch(r) }
        : undefined;
    const { app } = createActivatorApp({
      revisions: directory,
      coordinator: new DoCoordinator(
        env,
        endpointsFor,
        (p) => ctx.waitUntil(p),
        (k) => extras.get(`${k.namespace}/${k.name}`) ?? {},
      ),
      forward: createFetchForwarder((input, init) => fetch(input, init)),
      clock: systemClock,
      // Concurrency is tracked by the Durable Object's leases; the edge sends no per-invocation stats.
      reporter: { requestIn() {}, requestOut() {} },
      bodyBudget,
      // The gateway's held requests: to the Thaw origin or the edge decider (held-relay.ts).
      relayStats: (m) => relayHeldStats(env, byId, extras, m),
      // Wake hints go to a Thaw origin, whose autoscaler holds them; a webhook origin has none to hold them.
      ...(thaw ? { warm: (key, ttlMs) => sendWakeHint(thaw, key, Math.round(ttlMs / 1000)) } : {}),
      token: env.ACTIVATOR_TOKEN || undefined,
    });
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<WorkerEnv>;
