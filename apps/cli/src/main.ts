#!/usr/bin/env node
/**
 * `thaw`: `thaw up`, `thaw validate` and `thaw k8s render`. Each command's code is imported only once the
 * command line chose it, so `--help`, a typo or `validate` never load the stack (the Kubernetes client,
 * OpenTelemetry, the dashboard): see bench/startup.mjs.
 */
import { helpText } from "@thaw/command-line";
import { exitWithUsageError, readCommandLine } from "@thaw/command-line/node";
import { DEFAULT_CONFIG, K8S, THAW, UP, VALIDATE } from "./commands.js";
import { LOG_FORMATS } from "./format.js";

async function main(argv: string[]): Promise<number> {
  const top = readCommandLine(THAW, argv, import.meta.url);
  if (!top.command) {
    process.stderr.write(helpText(THAW));
    return 2;
  }
  const { name, argv: rest } = top.command;
  if (name === "validate") {
    const { positionals } = readCommandLine(VALIDATE, rest, import.meta.url);
    const file = positionals[0] ?? DEFAULT_CONFIG;
    const { validateCommand } = await import("./validate.js");
    const r = await validateCommand(file);
    (r.code === 0 ? process.stdout : process.stderr).write(`${r.output}\n`);
    return r.code;
  }
  if (name === "k8s") {
    const k8s = readCommandLine(K8S, rest, import.meta.url);
    if (!k8s.command) {
      process.stderr.write(helpText(K8S));
      return 2;
    }
    const args = k8s.command.argv;
    const { K8S_USAGE, k8sRenderCommand } = await import("./k8s/command.js");
    // `thaw k8s render` reads its own flags (k8s/command.ts); help and version are answered the same way here.
    if (args.some((a) => a === "--help" || a === "-h")) {
      process.stdout.write(`thaw k8s render: ${K8S.commands?.[0]?.summary}\n\n${K8S_USAGE}\n`);
      return 0;
    }
    if (args.includes("--version")) readCommandLine(K8S, ["--version"], import.meta.url); // exits
    const r = await k8sRenderCommand(args);
    process.stdout.write(r.stdout);
    process.stderr.write(r.stderr);
    return r.code;
  }
  const { flags } = readCommandLine(UP, rest, import.meta.url);
  const logFormat = flags["--log-format"] ?? "text";
  if (!LOG_FORMATS.includes(logFormat as never)) {
    exitWithUsageError(UP.name, `--log-format must be one of ${LOG_FORMATS.join(", ")}, got "${logFormat}"`);
  }
  const { upCommand } = await import("./up.js");
  return upCommand({
    config: flags["--config"] ?? DEFAULT_CONFIG,
    verbose: flags["--verbose"] === "true",
    logFormat: logFormat as (typeof LOG_FORMATS)[number],
    tracing: flags["--tracing"] === "true",
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`thaw: ${String(err)}\n`);
    process.exit(1);
  },
);
