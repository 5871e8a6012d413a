#!/usr/bin/env node
// `npm start`: the main job. Until `thaw up` exists (apps/cli), say what is built and what is not.
import { existsSync } from "node:fs";

const parts = [
  ["packages/clock", "@thaw/clock"],
  ["packages/protocol", "@thaw/protocol"],
  ["packages/readiness", "@thaw/readiness"],
  ["packages/autoscaler", "@thaw/autoscaler"],
  ["packages/activation", "@thaw/activation"],
  ["apps/queue-proxy", "thaw-queue-proxy"],
  ["apps/activator", "thaw-activator"],
  ["apps/ingress-hook", "thaw-ingress-hook"],
  ["apps/cli", "thaw up (the whole stack)"],
];
const root = new URL("..", import.meta.url).pathname;
console.log("Thaw: the stack is not complete yet, so `npm start` only reports what exists.\n");
for (const [dir, what] of parts)
  console.log(`  ${existsSync(root + dir) ? "built  " : "not yet"}  ${what}  (${dir})`);
