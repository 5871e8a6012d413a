import net from "node:net";

/** A raw client connection a test writes to at will and reads as text (latin1). */
export interface RawSocket {
  readonly socket: net.Socket;
  /** Everything read so far. */
  readonly text: string;
  readonly closed: boolean;
  /** Writes when still writable; returns whether it did. */
  write(bytes: string): boolean;
  /** Resolves once `predicate()` holds (checked on every read and on close) or after `maxMs`; true if it held. */
  until(predicate: () => boolean, maxMs: number): Promise<boolean>;
  destroy(): void;
}

/** Opens a connection to `origin` (http://host:port). */
export function rawSocket(origin: string): Promise<RawSocket> {
  const u = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port), noDelay: true });
    let text = "";
    let closed = false;
    const wakers = new Set<() => void>();
    const wake = () => {
      for (const w of wakers) w();
    };
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      text += chunk;
      wake();
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      closed = true;
      wake();
    });
    socket.once("connect", () =>
      resolve({
        socket,
        get text() {
          return text;
        },
        get closed() {
          return closed;
        },
        write: (bytes) => {
          if (closed || socket.destroyed || !socket.writable) return false;
          socket.write(bytes, "latin1");
          return true;
        },
        until: (predicate, maxMs) =>
          new Promise<boolean>((done) => {
            if (predicate()) return done(true);
            const finish = (ok: boolean) => {
              clearTimeout(timer);
              wakers.delete(check);
              done(ok);
            };
            const check = () => {
              if (predicate()) finish(true);
              else if (closed) finish(predicate());
            };
            const timer = setTimeout(() => finish(predicate()), maxMs);
            wakers.add(check);
          }),
        destroy: () => socket.destroy(),
      }),
    );
    socket.once("error", reject);
  });
}

/** The status codes of the complete responses at the start of `text` (Content-Length framed, or to the close). */
export function statuses(text: string): number[] {
  const out: number[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) return out;
    const head = rest.slice(0, end);
    const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
    const n = length ? Number(length[1]) : rest.length - end - 4;
    if (rest.length < end + 4 + n) return out;
    out.push(Number(head.slice(9, 12)));
    rest = rest.slice(end + 4 + n);
  }
}
