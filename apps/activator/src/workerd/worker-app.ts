import { systemClock } from "@thaw/clock";
import { checkBearer } from "../api/auth.js";
import { createActivatorApp } from "../app.js";
import { createFetchForwarder } from "../fetch-forwarder.js";
import type { RevisionKey } from "../ports.js";
import { type ConfigIssue, parseRevisions, type StaticRevision } from "../revisions-json.js";
import { StaticDirectory } from "../static-sources.js";
import { DoCoordinator } from "./do-coordinator.js";
import type { WorkerEnv } from "./env.js";

type Parsed = { revisions: StaticRevision[]; issues: ConfigIssue[] };
/** Parsed REVISIONS bindings by their text: an isolate parses its configuration once, not per request. */
const parsedByText = new Map<string, Parsed>();

/** Revisions parsed from the REVISIONS binding; a bad binding answers 500 with every issue. */
function readRevisions(env: WorkerEnv): Parsed {
  const text = env.REVISIONS ?? "";
  let parsed = parsedByText.get(text);
  if (!parsed) {
    const issues: ConfigIssue[] = [];
    parsed = { revisions: parseRevisions(text, "REVISIONS", issues), issues };
    parsedByText.set(text, parsed);
  }
  return parsed;
}

/** The activator Worker: the portable app with Durable-Object gates and a fetch forwarder. */
export const worker = {
  async fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Promise<Response> {
    const { revisions, issues } = readRevisions(env);
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
          await stub.configure({ namespace, name }, config, eps);
          return stub.status();
        }),
      );
      return Response.json({ revisions: revisionsStatus });
    }
    const { app } = createActivatorApp({
      revisions: directory,
      coordinator: new DoCoordinator(env, endpointsFor, (p) => ctx.waitUntil(p)),
      forward: createFetchForwarder((input, init) => fetch(input, init)),
      clock: systemClock,
      // Concurrency is tracked by the Durable Object's leases; the edge sends no per-invocation stats.
      reporter: { requestIn() {}, requestOut() {} },
      token: env.ACTIVATOR_TOKEN || undefined,
    });
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<WorkerEnv>;
