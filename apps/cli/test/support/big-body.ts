import { readFileSync } from "node:fs";
import net from "node:net";

/** What {@link sendBigBody} saw. */
export interface BigBodyResult {
  status: number;
  connection: string | undefined;
  /** Bytes written before the answer came (or the connection closed). */
  sentBytes: number;
  /** True once the server closed the connection. */
  closed: boolean;
}

/**
 * POSTs a chunked body of up to `totalBytes` (64 KiB chunks, paced by backpressure) on a raw socket and
 * stops writing as soon as an answer arrives (a write error, the server closing on the unread rest, only
 * stops the writing: the answer is still read); resolves once the connection is closed.
 */
export function sendBigBody(
  url: string,
  path: string,
  totalBytes: number,
  headers: Record<string, string> = {},
): Promise<BigBodyResult> {
  const u = new URL(url);
  const data = Buffer.alloc(64 * 1024, 120);
  const chunk = Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from("\r\n")]);
  const head = Object.entries({ host: u.host, ...headers, "transfer-encoding": "chunked" })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  return new Promise((resolve, reject) => {
    const out: BigBodyResult = { status: 0, connection: undefined, sentBytes: 0, closed: false };
    const socket = net.connect(Number(u.port), u.hostname);
    let got = "";
    let stop = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `no close within 60 s after ${out.sentBytes} bytes; got ${JSON.stringify(got.slice(0, 200))}`,
        ),
      );
    }, 60_000);
    socket.on("data", (d) => {
      got += d.toString("latin1");
      if (/\r\n\r\n/.test(got)) stop = true;
    });
    socket.on("error", () => {
      stop = true;
    });
    socket.on("close", () => {
      clearTimeout(timer);
      out.closed = true;
      const m = /^HTTP\/1\.1 (\d{3})/.exec(got);
      if (!m)
        return reject(
          new Error(`no answer after ${out.sentBytes} bytes: ${JSON.stringify(got.slice(0, 200))}`),
        );
      out.status = Number(m[1]);
      out.connection = /\r\nconnection: *([^\r]*)/i.exec(got)?.[1]?.toLowerCase();
      resolve(out);
    });
    const pump = () => {
      while (!stop && !socket.destroyed && out.sentBytes < totalBytes) {
        out.sentBytes += data.length;
        if (!socket.write(chunk)) return void socket.once("drain", pump);
      }
      if (!stop && !socket.destroyed) socket.write("0\r\n\r\n");
    };
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
    pump();
  });
}

/** Peak and current resident set size of a process, MiB (from /proc: VmHWM and VmRSS). */
export function memoryMiB(pid: number): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, "latin1");
  const kib = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { peak: Math.round(kib("VmHWM") / 1024), now: Math.round(kib("VmRSS") / 1024) };
}
