import type { ServerResponse } from "node:http";

/** Writes a small, fully buffered Web `Response` (probe answers, admin replies) to a Node response. */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((v, k) => {
    headers[k] = v;
  });
  headers["content-length"] = String(body.length);
  if (res.destroyed) return;
  res.writeHead(response.status, headers);
  res.end(body);
}
