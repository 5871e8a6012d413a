import { defineConfig } from "vitest/config";

// One file at a time: each file starts its own control plane (kube-apiserver alone takes 300-600 MB),
// and the machine may have two cores.
export default defineConfig({
  test: {
    environment: "node",
    include: ["test/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    // Longer than startControlPlane's own 180 s bound, so a late start fails with its log lines, not the hook's timeout.
    hookTimeout: 300_000,
  },
});
