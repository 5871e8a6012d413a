import { createInterface } from "node:readline";

/**
 * Spare mode's protocol, between a supervisor (thaw up's local scaler) and a queue-proxy it starts ahead of
 * a pod. Exported as `@thaw/queue-proxy/spare`, which loads nothing else of the queue-proxy.
 */

/** Set to `1`, the queue-proxy starts as a spare: modules loaded, nothing bound, its pod's env on stdin. */
export const SPARE_ENV = "THAW_QUEUE_PROXY_SPARE";

/** The stdout line a spare writes once it is warm and waits for its env: a cold start taking it now pays no boot. */
export const SPARE_WAITING_LINE = '{"msg":"thaw-queue-proxy spare waiting"}';

/**
 * The pod environment a spare waits for: the first stdin line, a JSON object of string values, or the
 * issue that names what is wrong with it. `undefined` when stdin ended first (the supervisor is gone).
 */
export async function readSpareEnv(
  input: NodeJS.ReadableStream,
): Promise<{ ok: true; env: Record<string, string> } | { ok: false; error: string } | undefined> {
  const rl = createInterface({ input });
  const line = await new Promise<string | undefined>((resolve) => {
    rl.once("line", resolve);
    rl.once("close", () => resolve(undefined));
  });
  rl.removeAllListeners();
  rl.close();
  if (line === undefined) return undefined;
  return parseSpareEnv(line);
}

/** Parses the spare's env line (see {@link readSpareEnv}). */
export function parseSpareEnv(
  line: string,
): { ok: true; env: Record<string, string> } | { ok: false; error: string } {
  const fix = 'send one line like {"QUEUE_SERVING_PORT":"8012","USER_PORT":"8080"}';
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, error: `stdin: the pod env is not JSON; ${fix}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: `stdin: the pod env must be a JSON object; ${fix}` };
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== "string") return { ok: false, error: `stdin.${k}: must be a string; ${fix}` };
    env[k] = v;
  }
  return { ok: true, env };
}
