// A loopback OTLP/HTTP traces receiver for tests whose spans come from child processes (types: otlp.d.ts).
import { createServer } from "node:http";

/** @returns {Promise<import("./otlp.d.ts").OtlpReceiver>} */
export async function startOtlpReceiver() {
  /** @type {import("./otlp.d.ts").ReceivedSpan[]} */
  const spans = [];
  const server = createServer((req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      // The JSON encoding only (what @opentelemetry/exporter-trace-otlp-http sends).
      if (req.url !== "/v1/traces" || !String(req.headers["content-type"]).includes("json")) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      for (const rs of body.resourceSpans ?? []) {
        const attr = (rs.resource?.attributes ?? []).find((/** @type {any} */ a) => a.key === "service.name");
        const service = attr?.value?.stringValue ?? "";
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              service,
              name: s.name,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? "",
            });
          }
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", () => r(undefined)));
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}`,
    spans,
    close: () => new Promise((r) => server.close(() => r(undefined))),
  };
}
