/**
 * Reads of accepted sockets into one buffer that all of them share, as dialled sockets already read
 * (`net.connect`'s `onread`, h1-upstream.ts): each read lands in that buffer and goes to a callback, with
 * no Buffer made for it (Node otherwise allocates 64 KiB per read and shrinks it to the read's size), no
 * stream push and no 'data' event. Node offers `onread` only to sockets it dials; an accepted socket keeps
 * the same two fields on its object, found once here from a socket made with `onread` and set on the
 * accepted one. On a Node where they are not found, accepted sockets read through 'data' as before.
 */
import net from "node:net";

/**
 * The one buffer every socket of this process reads into, accepted (here) and dialled to an app
 * (h1-upstream.ts); what must outlive the read is copied out. One is enough: no read callback runs inside
 * another.
 */
export const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

interface OnreadFields {
  buffer: symbol;
  callback: symbol;
}

type Handle = { useUserBuffer?: (buffer: Uint8Array) => void };

/** The socket fields that hold `onread`'s buffer and callback, or null when this Node has none. */
function findOnreadFields(): OnreadFields | null {
  const buffer = Buffer.alloc(1);
  const callback = () => true;
  // Typed for `net.connect` only, though the Socket constructor is what reads it.
  const probe = new net.Socket({ onread: { buffer, callback } } as net.SocketConstructorOpts);
  let found: Partial<OnreadFields> = {};
  for (const s of Object.getOwnPropertySymbols(probe)) {
    const value = (probe as unknown as Record<symbol, unknown>)[s];
    if (value === buffer) found = { ...found, buffer: s };
    else if (value === callback) found = { ...found, callback: s };
  }
  probe.destroy();
  return found.buffer && found.callback ? (found as OnreadFields) : null;
}

const fields = findOnreadFields();

/**
 * From now on `socket`'s reads reach `onRead` as views of the shared buffer, valid only during the call:
 * whatever is kept past it must be copied. Returns false, changing nothing, when this Node cannot; the
 * caller then reads 'data'. Pausing and resuming the socket still stop and start its reads.
 */
export function readShared(socket: net.Socket, onRead: (chunk: Buffer) => void): boolean {
  const handle = (socket as unknown as { _handle?: Handle | null })._handle;
  // A TLS socket's reads are the decrypted stream, not its handle's: those stay stream reads.
  if (fields === null || "encrypted" in socket || typeof handle?.useUserBuffer !== "function") return false;
  const s = socket as unknown as Record<symbol, unknown>;
  s[fields.buffer] = READ_BUFFER;
  s[fields.callback] = (n: number) => {
    onRead(READ_BUFFER.subarray(0, n));
  };
  handle.useUserBuffer(READ_BUFFER);
  return true;
}

/**
 * Gives a socket read through `readShared` back to stream reading: each read is copied and pushed, so it
 * comes out as 'data' (and waits in the stream while the socket is paused), as on any socket.
 */
export function readAsStream(socket: net.Socket): void {
  if (fields === null) return;
  const s = socket as unknown as Record<symbol, unknown>;
  if (s[fields.buffer] !== READ_BUFFER) return;
  // Returning the push's verdict lets the stream stop reading when its buffer is full.
  s[fields.callback] = (n: number) => socket.push(Buffer.from(READ_BUFFER.subarray(0, n)));
}
