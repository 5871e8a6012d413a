/** Faults a build can meet, each with a message that names what is missing and how to fix it. */
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { podmanBuild } from "../src/build.js";
import { runTool, setupPodman } from "../src/podman.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

it("a missing base image: the error names the image, the step and how to get the base", async () => {
  const pm = setupPodman();
  const build = podmanBuild(
    pm,
    ROOT,
    "example-hello",
    [
      "-f",
      `${ROOT}infra/docker/example-hello.Dockerfile`,
      "--build-arg",
      "NODE_IMAGE=localhost/thaw/no-such-base:0",
      "-t",
      "localhost/thaw/fault-test:0",
    ],
    () => {},
  );
  await expect(build).rejects.toThrow(
    /image example-hello failed at STEP 1\/\d+: FROM localhost\/thaw\/no-such-base:0[\s\S]*fix: a base image is missing: run `npm run images`/,
  );
});

it("a missing tool: says which and how to install it", async () => {
  const pm = setupPodman();
  await expect(runTool(pm, "no-such-podman-xyz", ["info"])).rejects.toThrow(
    "no-such-podman-xyz is not installed (not on PATH): install it with apt-get install no-such-podman-xyz",
  );
});
