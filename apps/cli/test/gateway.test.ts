import { UpstreamError, type UpstreamRequest } from "@thaw/activator";
import type { RevisionStatus } from "@thaw/autoscaler-service";
import type { IngressHook } from "@thaw/ingress-hook";
import { describe, expect, it } from "vitest";
import { ACTIVATOR_UPSTREAM, createGateway } from "../src/gateway.js";

const revision = { namespace: "default", name: "hello" };

function status(mode: "proxy" | "serve"): RevisionStatus {
  return {
    ...revision,
    desiredScale: 1,
    readyPods: 1,
    panic: false,
    mode,
    stableConcurrency: 0,
    panicConcurrency: 0,
    excessBurstCapacity: mode === "serve" ? 0 : -1,
    lastColdStartMs: null,
    scaleError: null,
    podProblem: null,
    warm: { window: null, hintUntilMs: null, minScale: 0 },
  };
}

/** A hook that always allows, to the given upstream, as a warm decision. */
function hook(upstream: string): IngressHook {
  return {
    clock: { now: () => 0 },
    // Tracing off, as in a hook built without a tracer.
    startSpan: () => undefined,
    tryDecide: () => ({ kind: "allow", revision, key: "default/hello", upstream, warm: true }),
    // No per-pod limit in the gateway (the activator throttles): every allow passes at once.
    tryRelease: (allow: unknown) => ({ allow }),
  } as unknown as IngressHook;
}

function gateway(
  mode: "proxy" | "serve",
  upstream: string,
  forward: (
    dest: string,
    r: UpstreamRequest,
  ) => Promise<never> | Promise<{ status: number; headers: Headers; body: null }>,
) {
  const seen: string[] = [];
  const app = createGateway({
    hook: hook(upstream),
    activator: {
      fetch: (req: Request) => {
        seen.push(
          `activator ${req.headers.get("knative-serving-namespace")}/${req.headers.get("knative-serving-revision")}`,
        );
        return new Response("via activator");
      },
    },
    forwardAuth: { fetch: () => new Response("auth") },
    forward: (dest, r) => {
      seen.push(`pod ${dest} ${r.path}`);
      return forward(dest, r);
    },
    revisions: () => [status(mode)],
  });
  return { app, seen };
}

describe("gateway routing", () => {
  it.each([
    ["serve mode goes straight to the pod", "serve", "127.0.0.1:9001", ["pod 127.0.0.1:9001 /x?y=1"]],
    ["proxy mode goes through the activator", "proxy", "127.0.0.1:9001", ["activator default/hello"]],
    [
      "the activator upstream goes through the activator",
      "serve",
      ACTIVATOR_UPSTREAM,
      ["activator default/hello"],
    ],
  ] as const)("%s", async (_n, mode, upstream, expected) => {
    const { app, seen } = gateway(mode, upstream, async () => ({
      status: 200,
      headers: new Headers(),
      body: null,
    }));
    const res = await app.request("http://hello.localhost/x?y=1");
    expect(res.status).toBe(200);
    expect(seen).toEqual(expected);
  });

  it("falls back to the activator when the pod refused the connection (nothing was sent)", async () => {
    const { app, seen } = gateway("serve", "127.0.0.1:9001", async () => {
      throw new UpstreamError("connect ECONNREFUSED", false);
    });
    const res = await app.request("http://hello.localhost/");
    expect(await res.text()).toBe("via activator");
    expect(seen).toEqual(["pod 127.0.0.1:9001 /", "activator default/hello"]);
  });

  it("answers 502 when the pod failed after the request was sent (no blind replay)", async () => {
    const { app } = gateway("serve", "127.0.0.1:9001", async () => {
      throw new UpstreamError("socket hang up", true);
    });
    expect((await app.request("http://hello.localhost/")).status).toBe(502);
  });

  it("mounts the forward-auth service under /_thaw/auth and the activator API under /v1", async () => {
    const { app, seen } = gateway("serve", "127.0.0.1:9001", async () => ({
      status: 200,
      headers: new Headers(),
      body: null,
    }));
    expect(await (await app.request("http://x/_thaw/auth/nginx")).text()).toBe("auth");
    expect(await (await app.request("http://127.0.0.1/v1/watch")).text()).toBe("via activator");
    expect(seen).toEqual(["activator null/null"]);
  });
});
