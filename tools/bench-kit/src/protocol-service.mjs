// The gRPC service of the protocol app, `thaw.test.Echo`, defined in code with JSON messages (no .proto):
// grpc-js frames, compresses and trails them as any gRPC service; only the message encoding is JSON.
/** @param {unknown} m */
const serialize = (m) => Buffer.from(JSON.stringify(m));
/** @param {Buffer} b */
const deserialize = (b) => JSON.parse(b.toString("utf8"));

/** @param {string} name @param {boolean} requestStream @param {boolean} responseStream */
const method = (name, requestStream, responseStream) => ({
  path: `/thaw.test.Echo/${name}`,
  requestStream,
  responseStream,
  requestSerialize: serialize,
  requestDeserialize: deserialize,
  responseSerialize: serialize,
  responseDeserialize: deserialize,
});

/** Unary (text -> pid, text; or fail: code -> that status), ServerStream (n, gapMs, text -> n messages pid, i, text), Bidi (echo each). */
export const ECHO_SERVICE = {
  Unary: method("Unary", false, false),
  ServerStream: method("ServerStream", false, true),
  Bidi: method("Bidi", true, true),
};
