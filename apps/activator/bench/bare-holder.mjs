// The floor for bench/queued.mjs: a bare node:http server (no Hono, no activator) that holds every request
// it gets and never answers, except GET /count (how many it holds). Its RSS with 10,000 held is what the
// sockets, IncomingMessages and ServerResponses cost by themselves.
import http from "node:http";

const held = new Set();
const server = http.createServer((req, res) => {
  if (req.url === "/count") return res.end(String(held.size));
  held.add(res);
  res.once("close", () => held.delete(res));
});
server.listen(Number(process.argv[2]), "127.0.0.1", () => process.stdout.write("listening\n"));
