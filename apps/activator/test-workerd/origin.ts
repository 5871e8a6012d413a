import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseScaleRequest, verifyScaleWebhook } from "@thaw/protocol";
import { WebSocketServer } from "ws";

/** The webhook secret the suite's activator signs with (vitest.workerd.config.ts). */
export const WEBHOOK_SECRET = "workerd-suite-secret-0123";

/** What the fake webhook and pod have seen. */
interface OriginState {
  started: boolean;
  pokes: number;
  requests: number;
  scales: { name: string; replicas: number }[];
  /** Webhook calls refused (bad signature or body). */
  refused: number;
}

/** A fake pod plus a fake scaler webhook for the workerd suite (runs in Node, started by global setup). */
export async function startOrigin(): Promise<{ port: number; server: Server }> {
  const st: OriginState = { started: false, pokes: 0, requests: 0, scales: [], refused: 0 };
  const control = (what: string, text: string, headers: Headers, res: ServerResponse) => {
    if (what === "poke") {
      // The scale webhook receiver: only signed thaw.scale/v1 bodies count.
      void verifyScaleWebhook(WEBHOOK_SECRET, headers, text, Date.now()).then((v) => {
        const body = v.ok ? parseScaleRequest(JSON.parse(text)) : undefined;
        if (!body?.ok) {
          st.refused++;
          res.writeHead(401).end();
          return;
        }
        // The edge decider's scale requests share the webhook with the activation's wake-up.
        if (body.value.reason.startsWith("edge-decider")) {
          st.scales.push({ name: body.value.name, replicas: body.value.desiredScale });
        } else {
          st.pokes++;
          setTimeout(() => {
            st.started = true;
          }, 300);
        }
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(st));
      });
      return;
    }
    if (what === "reset") {
      st.started = false;
      st.pokes = 0;
      st.requests = 0;
      st.refused = 0;
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
        const headers = new Headers(req.headers as Record<string, string>);
        control(url.slice("/__control/".length), Buffer.concat(chunks).toString(), headers, res);
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
