import { afterAll, describe, expect, it } from "vitest";
import { request } from "./support/stack-harness.js";
import { startUp, type UpRun, until } from "./support/up-process.js";

/**
 * A broken app is diagnosed at once (issue 27.1): `thaw up` (the real bin, a child process) says what went
 * wrong in its terminal output and on the status API, and held requests are answered with the cause long
 * before the revision's timeout instead of a bare 503 at its end.
 */
const TIMEOUT_S = 30;
const runs: UpRun[] = [];
afterAll(async () => {
  await Promise.all(runs.map((r) => r.dispose()));
});

function service(command: string[], extra: string[] = []): string[] {
  return [
    "listen: 127.0.0.1:0",
    "services:",
    "  - name: broken",
    "    hosts: [broken.localhost]",
    `    timeoutSeconds: ${TIMEOUT_S}`,
    ...extra,
    `    run: { command: ${JSON.stringify(command)} }`,
  ];
}

async function start(name: string, lines: string[]): Promise<UpRun> {
  const run = await startUp(name, lines);
  runs.push(run);
  return run;
}

async function revisionStatus(url: string): Promise<{ podProblem: string | null }> {
  const r = await fetch(`${url}/_thaw/api/revisions`);
  const all = (await r.json()) as { name: string; podProblem: string | null }[];
  return all.find((x) => x.name === "broken") ?? { podProblem: null };
}

describe("thaw up diagnoses a broken app", () => {
  it.each([
    {
      name: "an app that exits at once: its exit code and last output, then a crash loop",
      command: [process.execPath, "-e", "console.error('boom'); process.exit(3)"],
      cause: /app exited with code 3 before it was ready; last output: boom/,
    },
    {
      name: "a command that does not exist",
      command: ["no-such-binary-xyz"],
      cause:
        /no such command: no-such-binary-xyz \(run\.command\[0\]: not found on PATH or relative to run\.cwd\)/,
    },
    {
      name: "a relative command that does not exist",
      command: ["./bin/no-such-app"],
      cause: /no such command: \.\/bin\/no-such-app \(run\.command\[0\]/,
    },
    {
      // The shell exists: the command missing is the one its script runs, and the shell's words say which.
      name: "a shell script whose command does not exist",
      command: ["sh", "-c", "echo starting; no-such-tool-xyz --port $PORT"],
      cause:
        /no such command: no-such-tool-xyz, run by sh \(exit code 127\); last output: starting \| .*no-such-tool-xyz: not found/,
    },
  ])("$name", async ({ command, cause }) => {
    const { up } = await start("thaw-broken", service(command));
    const began = Date.now();
    const r = await request(up.url, { headers: { Host: "broken.localhost" } });
    const waited = Date.now() - began;
    expect(r.status).toBe(503);
    const body = JSON.parse(r.body) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("ERR_REVISION_FAILED");
    expect(body.error.message).toMatch(cause);
    // The spare launcher's own words (`thaw-spare-app: 4: exec: ...`) name nothing the user wrote.
    expect(body.error.message).not.toContain("thaw-spare-app");
    expect(r.headers["retry-after"]).toMatch(/^\d+$/);
    // Answered at the first failed start, not at the revision's timeout.
    expect(waited).toBeLessThan((TIMEOUT_S * 1000) / 2);
    await until(() => /failing: /.test(up.out) && cause.test(up.out), 10_000, "the terminal line");
    expect((await revisionStatus(up.url)).podProblem).toMatch(cause);
  });

  it("a crash loop backs off and says so", async () => {
    const command = [process.execPath, "-e", "console.error('boom'); process.exit(3)"];
    const { up } = await start("thaw-crashloop", service(command));
    void request(up.url, { headers: { Host: "broken.localhost" } });
    await until(
      () => /crash loop: 3 starts in a row failed; restarting after 4\.0 s/.test(up.out),
      20_000,
      "the third failed start",
    );
    // Each failed start is one line, not one per probe or per second.
    const lines = up.out.split("\n").filter((l) => l.includes("failing: app exited with code 3"));
    expect(lines.length).toBeLessThanOrEqual(4);
    // A request while it backs off is answered now with the crash loop as it stands, not held until the
    // next start fails (that one would say 4 starts) or the timeout.
    const r = await request(up.url, { headers: { Host: "broken.localhost" } });
    expect(r.status).toBe(503);
    const { code, message } = (JSON.parse(r.body) as { error: { code: string; message: string } }).error;
    expect(code).toBe("ERR_REVISION_FAILED");
    expect(message).toMatch(/crash loop: 3 starts in a row failed; restarting after 4\.0 s/);
    expect(Number(r.headers["retry-after"])).toBeLessThanOrEqual(4);
  });

  it("an app that listens on another port than $PORT", async () => {
    // Port 0: a port the kernel picks, so no other process can hold it first (a port found free and then
    // released could be taken before the app binds it, and the app would exit instead).
    const app = "require('node:http').createServer((q, s) => s.end('hi')).listen(0, '127.0.0.1')";
    const { up } = await start("thaw-wrongport", service([process.execPath, "-e", app]));
    const r = await request(up.url, { headers: { Host: "broken.localhost" } });
    expect(r.status).toBe(503);
    const message = (JSON.parse(r.body) as { error: { message: string } }).error.message;
    const said = /app listens on (\d+), not on \$PORT=(\d+): read the port from the PORT/.exec(message);
    expect(said, message).not.toBeNull();
    expect(said?.[1]).not.toBe(said?.[2]);
    expect((await revisionStatus(up.url)).podProblem).toContain(`listens on ${said?.[1]}`);
  });

  it("an app that never listens: the timeout names what was seen, once", async () => {
    const lines = service([process.execPath, "-e", "setInterval(() => {}, 1000)"]).map((l) =>
      l.includes("timeoutSeconds") ? "    timeoutSeconds: 4" : l,
    );
    const { up } = await start("thaw-nolisten", lines);
    const r = await request(up.url, { headers: { Host: "broken.localhost" } });
    expect(r.status).toBe(503);
    const { code, message } = (JSON.parse(r.body) as { error: { code: string; message: string } }).error;
    expect(code).toBe("ERR_ACTIVATION_TIMEOUT");
    expect(message).toMatch(
      /^revision default\/broken did not become ready within 4000 ms: app is running but has not listened on \$PORT=\d+ yet$/,
    );
  });
});
