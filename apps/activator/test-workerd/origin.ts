import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";

/** What the fake webhook and pod have seen. */
interface OriginState {
  started: boolean;
  pokes: number;
  requests: number;
  scales: { name: string; replicas: number }[];
}

/** A fake pod plus a fake scaler webhook for the workerd suite (runs in Node, started by global setup). */
export async function startOrigin(): Promise<{ port: number; server: Server }> {
  const st: OriginState = { started: false, pokes: 0, requests: 0, scales: [] };
  const control = (what: string, body: { name?: string; replicas?: number }, res: ServerResponse) => {
    if (what === "poke" && typeof body.replicas === "number") {
      // The edge decider's scale requests share the webhook with the cold-start poke.
      st.scales.push({ name: body.name ?? "", replicas: body.replicas });
    } else if (what === "poke") {
      st.pokes++;
      setTimeout(() => {
        st.started = true;
      }, 300);
    } else if (what === "reset") {
      st.started = false;
      st.pokes = 0;
      st.requests = 0;
    } else if (what === "start") st.started = true;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(st));
  };
  const server = createServer((req, res) => {
    const url = req.url ?? "/";
    if (req.headers["k-network-probe"] === "queue") {
      res.writeHead(st.started ? 200 : 503).end(st.started ? "queue" : "");
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    if (url.startsWith("/__control/")) {
      req.on("end", () => {
        const text = Buffer.concat(chunks).toString();
        control(url.slice("/__control/".length), text ? JSON.parse(text) : {}, res);
      });
      return;
    }
    st.requests++;
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(
        `ok ${req.method} ${url} ${req.headers["k-proxy-request"] ?? ""} ${Buffer.concat(chunks).toString()}`,
      );
    });
  });
  // Websocket pods: greet with the proxy marker the activator adds, then echo.
  const wss = new WebSocketServer({ server });
  wss.on("connection", (ws, req) => {
    ws.send(`hello ${req.headers["k-proxy-request"] ?? ""}`);
    ws.on("message", (m, binary) => ws.send(m, { binary }));
  });
  server.on("close", () => wss.close());
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as AddressInfo).port, server };
}
