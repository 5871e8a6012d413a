import { dirname, resolve } from "node:path";
import { type AutoscalerEvent, SCALE_WEBHOOK_SECRET_ENV } from "@thaw/autoscaler-service";
import { formatIssues } from "@thaw/config";
import { checkScaleSecret } from "@thaw/protocol";
import { formatEvent } from "./format.js";
import { type Stack, startStack } from "./stack.js";
import { loadAndCheck } from "./validate.js";

/** Options of {@link upCommand}. */
export interface UpOptions {
  config: string;
  /** Print pod output too. */
  verbose?: boolean;
  out?: (line: string) => void;
  err?: (line: string) => void;
}

/**
 * `thaw up`: validates the config, starts the stack, prints the URLs and one line per scale event, and on
 * SIGINT/SIGTERM drains and stops everything. Resolves with the exit code once nothing is left running.
 */
export async function upCommand(opts: UpOptions): Promise<number> {
  const out = opts.out ?? ((l: string) => process.stdout.write(`${l}\n`));
  const err = opts.err ?? ((l: string) => process.stderr.write(`${l}\n`));
  const loaded = await loadAndCheck(opts.config);
  if (!loaded.ok) {
    err(formatIssues(loaded.issues, opts.config));
    return 1;
  }
  const secret = process.env[SCALE_WEBHOOK_SECRET_ENV] || undefined;
  const bad = secret === undefined ? undefined : checkScaleSecret(secret, SCALE_WEBHOOK_SECRET_ENV);
  if (bad) {
    err(`thaw up: ${bad.path} ${bad.message}`);
    return 1;
  }
  let stack: Stack;
  try {
    stack = await startStack(loaded.config, loaded.services, {
      baseDir: dirname(resolve(opts.config)),
      ...(secret ? { scaleWebhookSecret: secret } : {}),
      onEvent: (e: AutoscalerEvent) => {
        const line = formatEvent(e);
        if (line) out(line);
      },
      ...(opts.verbose ? { onPodOutput: (_rev, pod, c, line) => err(`  [${pod} ${c}] ${line}`) } : {}),
    });
  } catch (e) {
    err(`thaw up: ${(e as Error).message}`);
    return 1;
  }
  const base = stack.url;
  out(`thaw up: gateway on ${base}  (config ${opts.config})`);
  out(`  status page   ${base}/_thaw/`);
  out(`  status API    ${base}/_thaw/api/revisions`);
  out(`  forward-auth  ${base}/_thaw/auth/{nginx,traefik,envoy}`);
  if (secret) out(`  scale webhook ${base}/v1/scale  (signed with ${SCALE_WEBHOOK_SECRET_ENV})`);
  if (loaded.config.token) {
    out(
      "  token         set: the page asks for it once; the API, forward-auth and /v1 need Authorization: Bearer",
    );
  }
  for (const s of loaded.config.services) {
    for (const host of s.hosts) {
      out(`  ${s.namespace}/${s.name}  curl -H 'Host: ${host}' ${base}${s.paths[0] ?? "/"}`);
    }
  }
  out("Every service starts scaled to zero. Ctrl-C drains and stops everything.");
  return new Promise<number>((resolve) => {
    let signals = 0;
    const stop = (sig: NodeJS.Signals) => {
      signals++;
      if (signals > 1) {
        err(`thaw up: ${sig} again, killing every pod now`);
        process.exit(130);
      }
      err(`thaw up: ${sig}: finishing accepted requests, draining pods…`);
      stack.close().then(
        () => {
          err("thaw up: stopped; no pod left running");
          resolve(0);
        },
        (e: unknown) => {
          err(`thaw up: stop failed: ${String(e)}`);
          resolve(1);
        },
      );
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
