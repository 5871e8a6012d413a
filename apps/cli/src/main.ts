#!/usr/bin/env node
/** `thaw`: `thaw up [--config file] [--verbose] [--log-format text|json] [--tracing]`, `thaw validate <file>` and `thaw k8s render`. */
import { LOG_FORMATS } from "./format.js";
import { K8S_USAGE, k8sRenderCommand } from "./k8s/command.js";
import { upCommand } from "./up.js";
import { validateCommand } from "./validate.js";

const USAGE = `usage:
  thaw up [--config thaw.config.yaml] [--verbose] [--log-format text|json] [--tracing]
                                                    run the whole stack on this machine
  thaw validate <thaw.config.yaml>                  check a config, print every issue
  thaw k8s render [--config thaw.config.yaml] [--out dir]   Kubernetes manifests (kustomize) for the config
${K8S_USAGE.split("\n").slice(1).join("\n")}`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "validate") {
    const file = rest.find((a) => !a.startsWith("-"));
    if (!file) {
      process.stderr.write(`${USAGE}\n`);
      return 2;
    }
    const r = await validateCommand(file);
    (r.code === 0 ? process.stdout : process.stderr).write(`${r.output}\n`);
    return r.code;
  }
  if (command === "k8s") {
    const [sub, ...args] = rest;
    if (sub !== "render") {
      process.stderr.write(`${K8S_USAGE}\n`);
      return 2;
    }
    const r = await k8sRenderCommand(args);
    process.stdout.write(r.stdout);
    process.stderr.write(r.stderr);
    return r.code;
  }
  if (command === "up") {
    let config = "thaw.config.yaml";
    let verbose = false;
    let logFormat: (typeof LOG_FORMATS)[number] = "text";
    let tracing = false;
    for (let i = 0; i < rest.length; i++) {
      const a = rest[i] as string;
      if (a === "--config" || a === "-c") config = rest[++i] ?? config;
      else if (a.startsWith("--config=")) config = a.slice("--config=".length);
      else if (a === "--verbose" || a === "-v") verbose = true;
      else if (a === "--log-format" || a.startsWith("--log-format=")) {
        const v = a === "--log-format" ? rest[++i] : a.slice("--log-format=".length);
        if (!LOG_FORMATS.includes(v as never)) {
          process.stderr.write(
            `thaw up: --log-format must be one of ${LOG_FORMATS.join(", ")}, got ${JSON.stringify(v ?? "")}\n`,
          );
          return 2;
        }
        logFormat = v as typeof logFormat;
      } else if (a === "--tracing") tracing = true;
      else {
        process.stderr.write(`thaw up: unknown argument ${a}\n${USAGE}\n`);
        return 2;
      }
    }
    return upCommand({ config, verbose, logFormat, tracing });
  }
  process.stderr.write(`${USAGE}\n`);
  return command === "--help" || command === "-h" ? 0 : 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`thaw: ${String(err)}\n`);
    process.exit(1);
  },
);
