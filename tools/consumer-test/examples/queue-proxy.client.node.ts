import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  BODY_NONE,
  fieldList,
  H1Client,
  KNATIVE_DIAL_POLICY,
  type UpstreamSink,
} from "@thaw/queue-proxy/http1";

// Two servers standing in for two pods.
async function pod(name: string): Promise<string> {
  const server = createServer((req, res) => res.end(`${name} got ${req.method} ${req.url}`));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const [a, b] = [await pod("pod a"), await pod("pod b")];

// One keep-alive pool per destination; dials that time out are retried as Knative's queue-proxy does.
const client = new H1Client({ maxConnectionsPerHost: 10, dial: KNATIVE_DIAL_POLICY });

// The client calls a sink per request; this one gathers the answer into a string.
function get(dest: string, path: string): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    const sink: UpstreamSink = {
      onConnect: () => {},
      startResponse: (status, fields) => {
        text += `${status} [${fieldList(fields)
          .filter((_, i) => i % 2 === 0)
          .join(" ")}] `;
        return true;
      },
      // A view of a shared read buffer: decode (copy) it now.
      onData: (chunk) => {
        text += chunk.toString("latin1");
        return true;
      },
      onComplete: () => resolve(text),
      onError: (err, unsent) => resolve(`${(err as { code?: string }).code} (unsent: ${unsent})`),
      resumeWith: () => {},
    };
    client.dispatch(
      dest,
      { method: "GET", path, headers: ["accept", "text/plain"], body: null, framing: BODY_NONE },
      sink,
    );
  });
}

console.log(await get(a, "/hello")); // → 200 [Date Content-Length] pod a got GET /hello
console.log(await get(b, "/hello")); // → 200 [Date Content-Length] pod b got GET /hello

// Pod a left: retain closes its pool and idle connection. A server that is gone refuses the dial, and the
// sink hears that no byte of the request went out (another pod may take it, whatever its method).
client.retain([b]);
const gone = createServer();
await new Promise<void>((resolve) => gone.listen(0, "127.0.0.1", resolve));
const port = (gone.address() as AddressInfo).port;
await new Promise<void>((resolve) => gone.close(() => resolve()));
console.log(await get(`127.0.0.1:${port}`, "/")); // → ECONNREFUSED (unsent: true)

await client.close();
