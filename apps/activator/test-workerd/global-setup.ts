import type { TestProject } from "vitest/node";
import { startOrigin } from "./origin.js";

export default async function setup(project: TestProject) {
  const origin = await startOrigin();
  project.provide("originPort", origin.port);
  return () => new Promise<void>((r) => origin.server.close(() => r()));
}
