import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** How many ports below the kernel's ephemeral range pods' ports are picked from. */
const SPAN = 12_288;
/** Where the kernel's ephemeral range starts when it cannot be read (Linux's default; macOS's is higher). */
const DEFAULT_EPHEMERAL_LOW = 32_768;

/**
 * The ports pods' ports are picked from: just below the kernel's ephemeral range, so no port the kernel
 * hands out meanwhile (a `listen(0)` anywhere on the host, an outgoing connection's source port) is one of
 * them. A port picked there is free when picked, but is only bound by the pod's container a moment later;
 * picked by the kernel, it could be handed out again in between, and that container would then fail to
 * bind it (a queue-proxy's admin port taken by a test server's `listen(0)` on a busy machine).
 */
export function podPortRange(ephemeral = readEphemeralRange()): { from: number; to: number } {
  const low = ephemeral?.low ?? DEFAULT_EPHEMERAL_LOW;
  if (low - SPAN >= 1024) return { from: low - SPAN, to: low - 1 };
  // An ephemeral range starting low leaves room only above it.
  const high = ephemeral?.high ?? 65_535;
  return { from: Math.min(high + 1, 65_535 - SPAN), to: 65_535 };
}

function readEphemeralRange(): { low: number; high: number } | undefined {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8")
      .trim()
      .split(/\s+/)
      .map(Number);
    return Number.isInteger(low) && Number.isInteger(high)
      ? { low: low as number, high: high as number }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Ports this process lent to pods and has not had back: never lent twice at once. */
const lent = new Set<number>();

/** Whether `port` can be listened on at `host` right now (the listener is closed again at once). */
function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    // close() gives the port back at once (the socket is closed synchronously); its callback only reports it.
    srv.listen(port, host, () => {
      srv.close();
      resolve(true);
    });
  });
}

/** Ports lent to one pod: given back once nothing of the pod holds them (its containers have exited). */
export interface LentPorts {
  ports: number[];
  giveBack(): void;
}

/**
 * `count` distinct ports, free on `host` (loopback) now, from `range` (`podPortRange()`) and not lent to
 * another pod of this process until `giveBack()`. A pod's ports are told to its containers before they
 * start, as Knative does. Each port of the range is tried at most once, from a random place in it (so two
 * processes seldom meet), several at once; an IP host needs no lookup, so a cold start does not wait for
 * this process's event loop to come round.
 */
export async function lendPorts(
  count: number,
  o: { host?: string; range?: { from: number; to: number } } = {},
): Promise<LentPorts> {
  const host = o.host ?? "127.0.0.1";
  const { from, to } = o.range ?? podPortRange();
  const size = to - from + 1;
  const start = Math.floor(Math.random() * size);
  let offset = 0;
  const taken: number[] = [];
  while (taken.length < count) {
    const batch: number[] = [];
    for (; batch.length < count - taken.length && offset < size; offset++) {
      const port = from + ((start + offset) % size);
      if (lent.has(port)) continue;
      lent.add(port);
      batch.push(port);
    }
    if (batch.length === 0) {
      for (const p of taken) lent.delete(p);
      throw new Error(`no ${count} free ports on ${host} between ${from} and ${to}`);
    }
    const free = await Promise.all(batch.map((p) => canListen(p, host)));
    for (const [i, p] of batch.entries()) {
      if (free[i]) taken.push(p);
      else lent.delete(p);
    }
  }
  let back = false;
  return {
    ports: taken,
    giveBack: () => {
      if (back) return;
      back = true;
      for (const p of taken) lent.delete(p);
    },
  };
}
