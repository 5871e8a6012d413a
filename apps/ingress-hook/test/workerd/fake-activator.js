// Fake activator for the workerd tests, implementing POST /v1/activate of CONTRACTS.md: `hello` becomes
// ready 50 ms after its first activation, `slow` 500 ms after, `stuck` never does (504 + Retry-After at
// timeoutMs), anything else is unknown (404); a hint alone (ttlSeconds, no timeoutMs) is recorded and
// answered 202. POST /v1/stats keeps each body (the gateway's held requests) as base64. GET /counts reports
// the activate calls, the hints and the stats bodies.
const counts = { activate: 0, hints: [], stats: [] };
const readyAt = new Map();

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/counts") return Response.json(counts);
    if (url.pathname === "/v1/stats" && request.method === "POST") {
      const bytes = new Uint8Array(await request.arrayBuffer());
      counts.stats.push(btoa(String.fromCharCode(...bytes)));
      return new Response(null, { status: 204 });
    }
    if (url.pathname !== "/v1/activate" || request.method !== "POST")
      return new Response("not found", { status: 404 });
    const body = await request.json();
    const key = `${body.namespace}/${body.name}`;
    if (body.ttlSeconds !== undefined && body.timeoutMs === undefined) {
      counts.hints.push(`${key} ${body.ttlSeconds}`);
      return Response.json(
        { namespace: body.namespace, name: body.name, warmUntilMs: Date.now() + body.ttlSeconds * 1000 },
        { status: 202 },
      );
    }
    counts.activate++;
    if (body.name === "stuck") {
      await new Promise((r) => setTimeout(r, body.timeoutMs));
      return Response.json(
        { error: { code: "ERR_ACTIVATION_TIMEOUT", message: `${key} not ready in time` } },
        { status: 504, headers: { "retry-after": "3" } },
      );
    }
    if (body.name !== "hello" && body.name !== "slow" && !body.name.startsWith("hello-")) {
      return Response.json(
        { error: { code: "ERR_UNKNOWN_REVISION", message: `unknown ${key}` } },
        { status: 404 },
      );
    }
    const cold = !readyAt.has(key);
    if (cold) readyAt.set(key, Date.now() + (body.name === "slow" ? 500 : 50));
    const wait = Math.max(0, readyAt.get(key) - Date.now());
    await new Promise((r) => setTimeout(r, wait));
    return Response.json({
      namespace: body.namespace,
      name: body.name,
      endpoints: ["10.0.0.1:8012"],
      coldStart: cold,
      waitedMs: wait,
    });
  },
};
