import type { Downstream } from "./ports.js";

/** Writes a small, fully buffered Web `Response` (probe answers, admin replies) to the client. */
export async function sendResponse(client: Downstream, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: string[] = [];
  response.headers.forEach((v, k) => {
    if (k !== "content-length") headers.push(k, v);
  });
  headers.push("content-length", String(body.length));
  if (client.closed) return;
  client.writeHead(response.status, headers);
  client.end(body);
}
