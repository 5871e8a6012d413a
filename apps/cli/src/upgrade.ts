import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { ActivatorDeps } from "@thaw/activator";
import { handleUpgrade, type UpgradeOptions } from "@thaw/activator/node";
import { type IngressHook, normalizeHost, pathOf } from "@thaw/ingress-hook";
import { type AddressRanges, Header } from "@thaw/protocol";
import { clientHeaders } from "./client-headers.js";

/**
 * Carries `Upgrade` requests (websockets and any other) through `thaw up`'s gateway: the same client-header
 * rules and host table as every request, then the activator's socket splice, which waits for a ready pod
 * (waking a cold revision) and makes the two sockets a tunnel only once the app answers 101.
 */
export function gatewayUpgrade(
  hook: IngressHook,
  activator: ActivatorDeps,
  trustedProxies: AddressRanges,
  options: UpgradeOptions = {},
) {
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on("error", () => {});
    const raw = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (Array.isArray(v)) for (const x of v) raw.append(k, x);
      else if (v !== undefined) raw.set(k, v);
    }
    const headers = clientHeaders(raw, req.socket.remoteAddress, trustedProxies);
    const d = hook.tryDecide(
      {
        method: req.method ?? "GET",
        host: normalizeHost(headers.get("host") ?? ""),
        path: pathOf(req.url ?? "/"),
        headers,
      },
      hook.clock.now(),
    );
    if (d.kind === "deny") {
      const body = JSON.stringify({ error: { code: d.code, message: d.message } });
      socket.end(
        `HTTP/1.1 ${d.status} ${d.status === 404 ? "Not Found" : d.status === 400 ? "Bad Request" : "Service Unavailable"}\r\n` +
          `connection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      return;
    }
    // The splice reads the revision from these headers (a client's were removed above).
    headers.set(Header.namespace, d.revision.namespace);
    headers.set(Header.revision, d.revision.name);
    const cleaned: Record<string, string> = {};
    headers.forEach((v, k) => {
      cleaned[k] = v;
    });
    req.headers = cleaned;
    void handleUpgrade(req, socket, head, activator, options);
  };
}
