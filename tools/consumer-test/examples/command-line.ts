import { type Command, closest, parseCommandLine } from "@thaw/command-line";

// One table per command: the parser reads it and --help prints it (readCommandLine in ./node does both).
const cli: Command = {
  name: "my-bin",
  summary: "does one thing",
  flags: [{ name: "--port", value: "PORT", env: "MY_PORT", default: "8080", help: "port to listen on" }],
};
const ok = parseCommandLine(cli, ["--port", "9000"]);
console.log(ok.kind === "ok" ? ok.flags["--port"] : ok.kind); // → 9000
const typo = parseCommandLine(cli, ["--prot", "9000"]);
console.log(typo.kind === "error" ? typo.message : typo.kind); // → unknown flag --prot (did you mean --port?)
console.log(closest("max-scael", ["min-scale", "max-scale"])); // → max-scale
