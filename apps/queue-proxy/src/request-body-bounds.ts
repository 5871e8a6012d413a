/**
 * Where a request's declared body ends in the raw bytes that follow its head (Content-Length, or
 * Transfer-Encoding chunked with its framing checked as for any request), so an upgrade handed over as a
 * raw socket sends the app that body and not one byte more.
 */

import { H1MessageParser } from "./h1-message.js";
import { ClientProtocolError } from "./h1-request-parser.js";

/** Measures one declared body; `take` says how many bytes of each piece belong to it. */
export class RequestBodyBounds extends H1MessageParser {
  private ended = false;

  /** `length` = Content-Length (0 when none), `chunked` = Transfer-Encoding chunked. */
  constructor(chunked: boolean, length: number) {
    super(0);
    this.begin();
    this.frame(chunked ? "chunked" : "length", length);
  }

  /** The body is complete. */
  get done(): boolean {
    return this.ended;
  }

  /** How many of `chunk`'s bytes belong to the body (the rest come after it). Throws on bad framing. */
  take(chunk: Buffer): number {
    if (this.ended || chunk.length === 0) return 0;
    return this.feedMessage(chunk);
  }

  protected error(message: string, status = 400): Error {
    return new ClientProtocolError(status, message);
  }

  protected parseHead(): void {
    throw new Error("RequestBodyBounds reads no head");
  }

  protected onBody(): void {}

  protected onEnd(): void {
    this.ended = true;
  }
}
