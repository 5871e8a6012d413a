/** What a Node `http` server parsed from a connection: the common currency of the harness. */

/** One request as llhttp (through Node's `http` server) parsed it. */
export interface Message {
  method: string;
  target: string;
  /** `1.0` or `1.1`. */
  version: string;
  /** Fields in the order received, names as sent. */
  headers: [string, string][];
  /** The body bytes as latin1 text (so every byte survives). */
  body: string;
  /** The body ended (false: the connection stopped inside it). */
  complete: boolean;
}

/** A connection the parser refused (Node's `clientError`). */
export interface Rejection {
  /** llhttp's error code, e.g. `HPE_INVALID_CHUNK_SIZE`. */
  code: string;
  reason: string;
}
