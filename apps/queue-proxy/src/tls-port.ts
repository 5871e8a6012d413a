import { createPrivateKey, X509Certificate } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import http2 from "node:http2";
import type net from "node:net";
import { join } from "node:path";
import type tls from "node:tls";
import type { Clock, TimerHandle } from "@thaw/clock";
import { guardH2Server, H2_SERVER_SETTINGS } from "@thaw/protocol/node";
import { nodeListener, type ServingHandler } from "./serving.js";
import type { TlsSettings } from "./tls-settings.js";
import type { UpgradeHandlers } from "./upgrade.js";

/** Knative reloads the serving certificate once a minute (c.1). */
export const CERT_RELOAD_PERIOD_MS = 60_000;

/** The two files Knative mounts for the TLS port. */
export interface CertFiles {
  cert: string;
  key: string;
}

/** `tls.crt` and `tls.key` in `dir`. */
export function certFilesIn(dir: string): CertFiles {
  return { cert: join(dir, "tls.crt"), key: join(dir, "tls.key") };
}

/** Whether both files exist: the TLS port starts only then, like Knative's. */
export function certFilesPresent(files: CertFiles): boolean {
  return existsSync(files.cert) && existsSync(files.key);
}

/**
 * Reads and checks both files, so a failure names the file at fault: a missing or unreadable file, a
 * certificate or key that does not parse, or a key that does not belong to the certificate.
 */
export function loadCertPair(files: CertFiles): { cert: Buffer; key: Buffer } {
  const read = (path: string, what: string) => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`cannot read ${what} ${path}: ${(err as Error).message}`);
    }
  };
  const cert = read(files.cert, "certificate");
  const key = read(files.key, "private key");
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (err) {
    throw new Error(`certificate ${files.cert} is not a PEM certificate: ${(err as Error).message}`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    throw new Error(`private key ${files.key} is not a PEM private key: ${(err as Error).message}`);
  }
  if (!x509.checkPrivateKey(privateKey)) {
    throw new Error(`private key ${files.key} does not match certificate ${files.cert}`);
  }
  return { cert, key };
}

/** The TLS serving port: one server for HTTP/1.1 and HTTP/2 (ALPN), and what drain needs of it. */
export interface TlsPort {
  server: http2.Http2SecureServer;
  /** Established TLS connections (the sockets the request and upgrade handlers see). */
  sockets: Set<tls.TLSSocket>;
  /** Reads the files again and swaps the certificate; false (old one kept, one line logged) on failure. */
  reload(): boolean;
  /** Stops accepting and asks HTTP/2 clients to go away (GOAWAY); in-flight streams finish. */
  stopAccepting(): void;
  /** Closes HTTP/1.1 keep-alive connections that have no request in flight (drain). */
  closeIdle(): void;
  /** Destroys every connection, including handshakes still running, and stops the reload timer. */
  destroy(): Promise<void>;
}

/** What the TLS port needs besides the handlers. */
export interface TlsPortOptions {
  files: CertFiles;
  settings: TlsSettings;
  clock: Clock;
  /** Defaults to {@link CERT_RELOAD_PERIOD_MS}. */
  reloadPeriodMs?: number;
  /** Where a failed reload is reported, one line each. */
  log: (line: string) => void;
  /** Time to read a request head; default 60 s (Go's ReadHeaderTimeout in Knative). */
  headersTimeoutMs?: number;
}

/**
 * Builds the TLS port around the plain port's request and upgrade handlers; HTTP/2 requests reach the
 * handler through the compatibility API just as h2c ones do. Throws when the files cannot be loaded.
 */
export function createTlsPort(
  onRequest: ServingHandler,
  onUpgrade: UpgradeHandlers["node"],
  options: TlsPortOptions,
): TlsPort {
  const { files, settings, clock, log } = options;
  const period = options.reloadPeriodMs ?? CERT_RELOAD_PERIOD_MS;
  const headersTimeoutMs = options.headersTimeoutMs ?? 60_000;
  const protocol = {
    minVersion: settings.minVersion,
    ...(settings.maxVersion !== undefined ? { maxVersion: settings.maxVersion } : {}),
    ...(settings.ciphers !== undefined ? { ciphers: settings.ciphers } : {}),
    ...(settings.ecdhCurve !== undefined ? { ecdhCurve: settings.ecdhCurve } : {}),
  };
  const server = http2.createSecureServer(
    { ...protocol, ...loadCertPair(files), allowHTTP1: true, settings: H2_SERVER_SETTINGS },
    nodeListener(onRequest),
  );
  // HTTP/2 sessions as on the plain port: closed without a stream by the head timeout, kept between streams,
  // GOAWAY ENHANCE_YOUR_CALM on a reset flood.
  const h2Sessions = guardH2Server(server, { idleMs: 0, firstStreamMs: headersTimeoutMs });
  // Same limits as the plain port: no cap on a whole request (the revision timeout governs), Go's one
  // minute to read a request head, and no idle timeout on keep-alive connections (Knative sets none).
  // Node reads these for allowHTTP1 connections; the typings only know them on http.Server.
  Object.assign(server, {
    requestTimeout: 0,
    headersTimeout: headersTimeoutMs,
    keepAliveTimeout: 0,
  });
  server.on("upgrade", onUpgrade);

  const raw = new Set<net.Socket>();
  const sockets = new Set<tls.TLSSocket>();
  server.on("connection", (socket: net.Socket) => {
    raw.add(socket);
    socket.once("close", () => raw.delete(socket));
  });
  server.on("secureConnection", (socket: tls.TLSSocket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  // Failed handshakes (a client refusing the certificate, a version mismatch) are the client's problem.
  server.on("tlsClientError", (_err, socket) => socket.destroy());

  const reload = (): boolean => {
    try {
      server.setSecureContext({ ...protocol, ...loadCertPair(files) });
      return true;
    } catch (err) {
      log(
        `thaw-queue-proxy: certificate reload failed, still serving the previous one: ${(err as Error).message}`,
      );
      return false;
    }
  };
  let timer: TimerHandle | null = null;
  const schedule = () => {
    timer = clock.setTimeout(() => {
      reload();
      schedule();
    }, period);
    (timer as { unref?: () => void }).unref?.();
  };
  schedule();
  const stopTimer = () => {
    if (timer !== null) clock.clearTimeout(timer);
    timer = null;
  };

  return {
    server,
    sockets,
    reload,
    stopAccepting() {
      stopTimer();
      if (server.listening) server.close();
      h2Sessions.close();
    },
    closeIdle() {
      // Node's HTTP/1 connection tracking runs for allowHTTP1 servers too; only the typings lack it.
      (server as unknown as { closeIdleConnections(): void }).closeIdleConnections();
    },
    destroy() {
      stopTimer();
      const closed = new Promise<void>((resolve) => {
        if (server.listening) server.close(() => resolve());
        else resolve();
      });
      for (const socket of sockets) socket.destroy();
      for (const socket of raw) socket.destroy();
      return closed;
    },
  };
}
