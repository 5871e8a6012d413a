/**
 * The harness's client: one raw TCP connection that writes a case's bytes unchanged and reads the
 * answers, counting final responses with a small response reader (the servers under test frame every
 * answer with Content-Length, chunked or the end of the connection).
 */
import net from "node:net";

/** One final (non-1xx) response the client read. */
export interface Answer {
  status: number;
  /** The body as latin1 text ("" until it is read in full). */
  body: string;
}

/** A connection the harness drives. */
export interface RawConnection {
  /** The client's own port (how the reference recorder names this connection). */
  readonly localPort: number;
  readonly answers: Answer[];
  /** The server closed (or reset) the connection. */
  readonly closed: boolean;
  /** Resolves once `predicate()` holds (checked on every read and every `pollMs`) or after `maxMs`; true if it held. */
  until(predicate: () => boolean, maxMs: number): Promise<boolean>;
  destroy(): void;
}

const POLL_MS = 2;

/** Opens a connection to 127.0.0.1:`port` and writes `bytes`. */
export function sendRaw(port: number, bytes: Buffer): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: "127.0.0.1", noDelay: true });
    const answers: Answer[] = [];
    let closed = false;
    let text = "";
    let waker: (() => void) | null = null;
    const read = () => {
      for (;;) {
        const end = text.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = text.slice(0, end);
        const status = Number(head.slice(9, 12));
        const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
        const chunked = /\r\ntransfer-encoding:[ \t]*chunked/i.test(head);
        let rest = text.slice(end + 4);
        let body = "";
        if (status >= 100 && status < 200) {
          text = rest;
          continue;
        }
        if (length !== null) {
          const n = Number(length[1]);
          if (rest.length < n) return;
          body = rest.slice(0, n);
          rest = rest.slice(n);
        } else if (chunked) {
          const stop = rest.indexOf("0\r\n\r\n");
          if (stop < 0) return;
          body = rest.slice(0, stop);
          rest = rest.slice(stop + 5);
        } else {
          // Close-delimited: the rest of the connection is the body.
          body = rest;
          rest = "";
        }
        answers.push({ status, body });
        text = rest;
      }
    };
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      text += chunk;
      read();
      waker?.();
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      closed = true;
      waker?.();
    });
    socket.once("connect", () => {
      socket.write(bytes);
      resolve({
        localPort: socket.localPort ?? 0,
        answers,
        get closed() {
          return closed;
        },
        until(predicate, maxMs) {
          return new Promise((done) => {
            const started = Date.now();
            let timer: NodeJS.Timeout | null = null;
            let over = false;
            const check = () => {
              if (over) return;
              if (timer !== null) clearTimeout(timer);
              if (predicate()) finish(true);
              else if (Date.now() - started >= maxMs) finish(false);
              else timer = setTimeout(check, POLL_MS);
            };
            const finish = (held: boolean) => {
              over = true;
              if (timer !== null) clearTimeout(timer);
              waker = null;
              done(held);
            };
            waker = () => setImmediate(check);
            check();
          });
        },
        destroy: () => socket.destroy(),
      });
    });
    socket.once("error", reject);
  });
}
