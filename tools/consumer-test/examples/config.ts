import { formatIssues, parseConfig } from "@thaw/config";

// A thaw.config.yaml, already parsed from YAML (in Node, `loadConfigFile(path)` from @thaw/config/node
// reads and parses the file in one call and returns the same result).
const good = parseConfig({
  listen: "127.0.0.1:8080",
  services: [
    {
      name: "hello",
      hosts: ["hello.localhost"],
      containerConcurrency: 4,
      autoscaling: { target: 3, "max-scale": 5 },
      run: { command: ["node", "server.mjs"] },
    },
  ],
});
if (!good.ok) throw new Error(formatIssues(good.issues));
const svc = good.value.services[0];
console.log(`${svc?.namespace}/${svc?.name} on ${svc?.hosts?.join(",")}`); // → default/hello on hello.localhost

// Every problem at once, each with its field path and what to write instead.
const bad = parseConfig({ services: [{ name: "Hello", autoscaling: { target: -1 }, run: { command: [] } }] });
if (!bad.ok) console.log(formatIssues(bad.issues, "thaw.config.yaml"));
// → thaw.config.yaml: services[0].name
// → thaw.config.yaml: services[0].autoscaling.target
