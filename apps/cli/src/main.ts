#!/usr/bin/env node
/**
 * `thaw`: `thaw up`, `thaw validate` and `thaw k8s render`. Each command's code is imported only once the
 * command line chose it, so `--help`, a typo or `validate` never load the stack (the Kubernetes client,
 * OpenTelemetry, the dashboard): see bench/startup.mjs.
 */
import { helpText } from "@thaw/command-line";
import { exitWithUsageError, readCommandLine } from "@thaw/command-line/node";
import { DEFAULT_CONFIG, K8S, RENDER, THAW, UP, VALIDATE } from "./commands.js";
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
    // Help, version and mistakes are answered from the table before the render code is loaded.
    readCommandLine(RENDER, k8s.command.argv, import.meta.url);
    const { k8sRenderCommand } = await import("./k8s/command.js");
    const r = await k8sRenderCommand(k8s.command.argv);
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
