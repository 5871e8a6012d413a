/** One span as OTLP/HTTP's JSON encoding carries it (ids in hex), with its resource's service name. */
export interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
}
/** A loopback OTLP/HTTP traces receiver (JSON encoding, `POST /v1/traces`), for spans of child processes. */
export interface OtlpReceiver {
  /** Base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Every span received so far. */
  spans: ReceivedSpan[];
  close(): Promise<void>;
}
/** Starts the receiver on 127.0.0.1; it answers each export with OTLP's empty success body. */
export function startOtlpReceiver(): Promise<OtlpReceiver>;
