import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { BODY_CHUNKED, BODY_NONE, type Downstream } from "./ports.js";
import { fieldList, type ResponseHeaders } from "./response-fields.js";

/** A request from Node's servers (the TLS port, and HTTP/2 on either port) as an exchange's client side. */
export class NodeDownstream implements Downstream {
  onClose: (() => void) | null = null;
  onDrain: (() => void) | null = null;
  responseLength = "";

  constructor(
    private readonly req: IncomingMessage | Http2ServerRequest,
    private readonly res: ServerResponse | Http2ServerResponse,
  ) {
    res.on("close", () => this.onClose?.());
    res.on("drain", () => this.onDrain?.());
  }

  get method(): string {
    return this.req.method ?? "GET";
  }

  get target(): string {
    return this.req.url ?? "/";
  }

  get http2(): boolean {
    return this.req.httpVersionMajor === 2;
  }

  get protocol(): string {
    return `HTTP/${this.req.httpVersion}`;
  }

  get remoteAddress(): string {
    return this.req.socket.remoteAddress ?? "";
  }

  get localAddress(): string {
    return this.req.socket.localAddress ?? "";
  }

  /** From the fields Node's parser read: Transfer-Encoding (it de-chunks), Content-Length, or neither (HTTP/2: the stream). */
  get bodyFraming(): number {
    const h = this.req.headers;
    if (h["transfer-encoding"] !== undefined) return BODY_CHUNKED;
    const length = h["content-length"];
    if (length !== undefined) return Number(length);
    // HTTP/2 frames a body by its stream: one without a length (gRPC's, every h2c stream body) has one
    // unless the client ended the stream with its headers.
    if (this.http2) return (this.req as Http2ServerRequest).stream.endAfterHeaders ? BODY_NONE : BODY_CHUNKED;
    return BODY_NONE;
  }

  get body(): IncomingMessage | Http2ServerRequest {
    return this.req;
  }

  get headersSent(): boolean {
    return this.res.headersSent;
  }

  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  writeHead(status: number, fields: ResponseHeaders): void {
    const headers = fieldList(fields);
    for (let i = 0; i < headers.length; i += 2) {
      if ((headers[i] as string).toLowerCase() === "content-length")
        this.responseLength = headers[i + 1] as string;
    }
    (this.res as ServerResponse).writeHead(status, headers);
  }

  write(chunk: Buffer): boolean {
    // Node's response keeps what it is given until it is sent; `chunk` is only valid during this call.
    return (this.res as ServerResponse).write(Buffer.from(chunk));
  }

  end(body?: string | Buffer): void {
    if (body === undefined) this.res.end();
    else (this.res as ServerResponse).end(body);
  }

  addTrailers(trailers: Record<string, string | string[]>): void {
    if (this.http2) (this.res as Http2ServerResponse).addTrailers(trailers);
  }

  destroy(): void {
    this.res.destroy();
  }
}
