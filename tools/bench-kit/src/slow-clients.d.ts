/** How a misbehaving client's connection ended: ms until the server closed it (null: still open at maxMs). */
export interface SlowClientResult {
  closedAfterMs: number | null;
  /** What the server sent (e.g. a 408 before closing). */
  received: string;
}
/** A request head trickled one byte every `byteIntervalMs` that never ends. */
export function slowloris(
  port: number,
  opts?: { host?: string; byteIntervalMs?: number; maxMs?: number },
): Promise<SlowClientResult>;
/** A connection that never sends a byte. */
export function silentSocket(port: number, opts?: { maxMs?: number }): Promise<SlowClientResult>;
/** One complete request, then the kept-alive connection left idle; the time counts from the response. */
export function idleAfterRequest(
  port: number,
  opts?: { host?: string; path?: string; maxMs?: number },
): Promise<SlowClientResult>;
/** What {@link slowClientScenario} saw. */
export interface SlowClientScenario {
  slow: SlowClientResult[];
  silent: SlowClientResult[];
  idle: SlowClientResult;
  /** Normal requests served meanwhile. */
  normal: number;
  worstMs: number;
  /** Each broken promise as a sentence; empty when every one holds. */
  problems: string[];
}
/** Slowloris, silent and idle sockets at `port` while `normal(i)` requests are served; see the .mjs. */
export function slowClientScenario(
  port: number,
  opts: {
    label: string;
    headersMs: number;
    host?: string;
    idlePath?: string;
    /** What the server does with a keep-alive idle after its request: close it at the limit (default) or keep it. */
    idle?: "closed" | "open";
    normal(i: number): Promise<void>;
  },
): Promise<SlowClientScenario>;
