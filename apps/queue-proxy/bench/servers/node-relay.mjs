// Reference: the least a Node process can do per proxied request. Each client connection gets its own
// backend connection, and bytes are copied both ways as they arrive, with the queue-proxy's own I/O: each
// side reads into one shared buffer (the client side through src/shared-reads.ts, the backend side
// `onread`), one copy and one write per read. No HTTP parsing, no pool, no header rewriting, no stats.
// Not a proxy anyone should run (one backend connection per client, nothing checked), but its CPU per
// request is the floor under any HTTP/1 proxy written for Node.
// Usage: node node-relay.mjs <port> <backendPort>
import net from "node:net";
import { readShared } from "../../dist/shared-reads.js";

const [port, backend] = process.argv.slice(2).map(Number);
const fromBackend = Buffer.allocUnsafe(64 * 1024);

net
  .createServer({ noDelay: true, pauseOnConnect: true }, (client) => {
    const upstream = net.connect({
      host: "127.0.0.1",
      port: backend,
      noDelay: true,
      onread: {
        buffer: fromBackend,
        callback: (n) => void client.write(Buffer.from(fromBackend.subarray(0, n))),
      },
    });
    if (!readShared(client, (chunk) => void upstream.write(Buffer.from(chunk))))
      client.on("data", (d) => upstream.write(d));
    upstream.once("connect", () => client.resume());
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", close);
    upstream.on("close", close);
    client.on("error", () => {});
    upstream.on("error", () => {});
  })
  .listen(port, "127.0.0.1");
process.on("SIGTERM", () => process.exit(0));
