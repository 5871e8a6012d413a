import { readdir, readFile, readlink } from "node:fs/promises";

/** A LISTEN row of a /proc/net/tcp table: its local port and its socket's inode. */
export interface ListenRow {
  port: number;
  inode: string;
}

/** The LISTEN rows (state 0A) of a Linux /proc/net/tcp or tcp6 table. */
export function listenRows(table: string): ListenRow[] {
  const out: ListenRow[] = [];
  for (const line of table.split("\n").slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== "0A") continue;
    const port = Number.parseInt((f[1] as string).split(":")[1] ?? "", 16);
    if (Number.isInteger(port)) out.push({ port, inode: f[9] as string });
  }
  return out;
}

/** The LISTEN rows of this network namespace (IPv4 and IPv6); undefined where /proc cannot be read. */
export async function namespaceListeners(): Promise<ListenRow[] | undefined> {
  const tables = await Promise.all(
    ["/proc/net/tcp", "/proc/net/tcp6"].map((t) => readFile(t, "latin1").catch(() => undefined)),
  );
  if (tables.every((t) => t === undefined)) return undefined;
  return tables.flatMap((t) => (t === undefined ? [] : listenRows(t)));
}

/** The inodes of the sockets process `pid` holds open ("self" for this one). */
export async function socketInodes(pid: number | "self"): Promise<Set<string>> {
  const inodes = new Set<string>();
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
    const m = /^socket:\[(\d+)\]$/.exec(target);
    if (m?.[1]) inodes.add(m[1]);
  }
  return inodes;
}

/**
 * The TCP ports listened on in this network namespace by any process but this one, sorted, once each: in a
 * pod, the app's (its containers share the namespace). Undefined where /proc cannot be read.
 */
export async function othersListening(): Promise<number[] | undefined> {
  const rows = await namespaceListeners();
  if (rows === undefined) return undefined;
  const own = await socketInodes("self");
  return [...new Set(rows.filter((r) => !own.has(r.inode)).map((r) => r.port))].sort((a, b) => a - b);
}
