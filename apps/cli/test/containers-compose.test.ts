/**
 * docs/containers.md's "From a Compose file to scale-to-zero", run as written: its compose.yaml and
 * thaw.config.yaml are read from the page (only the image, the port and the socket are this test's), created
 * by Docker Compose v5.6.0 (built from its Go module by `npm run compose:build`; .ci/run builds it first)
 * against a real `podman system service`, checked by the `thaw validate` bin and served by `thaw up`.
 */
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { runBin } from "@thaw/command-line/node/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { composeBinary } from "../../../tools/compose-build/compose-binary.mjs";
import { type PodmanEngine, startPodman } from "./support/podman-engine.js";
import { request, stackFrom } from "./support/stack-harness.js";

const DOC = fileURLToPath(new URL("../../../docs/containers.md", import.meta.url));
const BIN = fileURLToPath(new URL("../bin/thaw.mjs", import.meta.url));
/** The page's port is 18961; another test file's container has it on the host network. */
const PORT = "18991";

/** The fenced block of `lang` in the page whose first line is `first`. */
function docBlock(lang: string, first: string): string {
  const blocks = [...readFileSync(DOC, "utf8").matchAll(/^( *)```(\w+)\n([\s\S]*?)^\1```$/gm)];
  for (const [, indent = "", l, body = ""] of blocks) {
    const text = body
      .split("\n")
      .map((line) => line.slice(indent.length))
      .join("\n");
    if (l === lang && text.startsWith(first)) return text;
  }
  throw new Error(`docs/containers.md has no ${lang} block starting ${first}`);
}

describe("docs/containers.md with Docker Compose against podman's API", () => {
  let engine: PodmanEngine;
  let compose: string;
  let dir: string;
  let configLines: string[];
  const run = promisify(execFile);
  /** `docker compose <args>` (the same binary, standalone) for project `app` on the test engine. */
  const dockerCompose = async (args: string[]) =>
    (
      await run(compose, ["-f", join(dir, "compose.yaml"), "-p", "app", ...args], {
        env: { ...process.env, DOCKER_HOST: `unix://${engine.socket}` },
      })
    ).stdout;
  const names = async () =>
    (await engine.podman(["ps", "-a", "--format", "{{.Names}}"])).split("\n").filter(Boolean).sort();
  const validate = async () => {
    const file = join(dir, "thaw.config.yaml");
    writeFileSync(file, configLines.join("\n"));
    return runBin(BIN, ["validate", file], { PATH: process.env.PATH });
  };

  beforeAll(async () => {
    compose = composeBinary();
    engine = await startPodman();
    dir = engine.dir;
    const composeYaml = docBlock("yaml", "# compose.yaml")
      .replaceAll("registry.example/web:1", "localhost/thaw-test/httpd:1")
      .replaceAll("18961", PORT);
    writeFileSync(join(dir, "compose.yaml"), composeYaml);
    const config = parse(docBlock("yaml", "# thaw.config.yaml")) as {
      listen: string;
      containers: Record<string, unknown>;
    };
    expect(config.containers.discover).toBe(true);
    config.listen = "127.0.0.1:0";
    config.containers.socket = engine.socket;
    configLines = stringify(config).trimEnd().split("\n");
  }, 180_000);
  afterAll(async () => {
    await engine?.stop();
  }, 60_000);

  it("compose create, thaw validate and a cold request served; Compose's own replica 2 refused, then removed", async () => {
    await dockerCompose(["create"]);
    expect(await names()).toEqual(["app-web-1"]);
    const ok = await validate();
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/ok \(1 service\(s\)\)/);

    const { stack, dispose } = await stackFrom(configLines);
    try {
      expect(stack.service.revisions().map((r) => r.name)).toEqual(["web"]);
      const r = await request(stack.url, { headers: { host: "web.example.com" } });
      expect(r.status).toBe(200);
      expect(r.body).toBe("hello from a container\n");
    } finally {
      await dispose();
    }

    // `--scale web=2`: Compose's replica 2 is refused (Thaw makes replicas from the first), naming the label
    // and the fix; `--scale web=1` takes it away again.
    await dockerCompose(["create", "--scale", "web=2"]);
    expect(await names()).toEqual(["app-web-1", "app-web-2"]);
    const refused = await validate();
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      /container app-web-2, label com\.docker\.compose\.container-number: replica 2 .*--scale web=1/,
    );
    await dockerCompose(["create", "--scale", "web=1"]);
    expect(await names()).toEqual(["app-web-1"]);
    expect((await validate()).code).toBe(0);
  }, 180_000);
});
