// The benchmark's probe target, in its own process as a user container would be. On {cmd:"listen"} it
// records the monotonic time (shared by every process on the machine) just before listen() and reports it.
import http from "node:http";
import net from "node:net";

let server;
process.on("message", (msg) => {
  if (msg.cmd === "listen") {
    server =
      msg.kind === "tcp" ? net.createServer((s) => s.end()) : http.createServer((_q, r) => r.end("ok"));
    const listenAt = process.hrtime.bigint();
    server.listen(msg.port, "127.0.0.1", () => process.send({ listening: true, listenAt: String(listenAt) }));
  } else if (msg.cmd === "close") {
    server?.closeAllConnections?.();
    server?.close(() => process.send({ closed: true }));
  } else if (msg.cmd === "exit") {
    process.exit(0);
  }
});
process.send({ started: true });
