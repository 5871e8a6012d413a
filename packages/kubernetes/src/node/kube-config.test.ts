import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { AppsV1Api } from "@kubernetes/client-node";
import { afterEach, describe, expect, it } from "vitest";
import { kubeConfigFor } from "./kube-config.js";

const closers: (() => void)[] = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
});

describe("kubeConfigFor", () => {
  it("keeps one connection to the API server for successive calls (the client alone opens one per call)", async () => {
    let connections = 0;
    const server = createServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          apiVersion: "autoscaling/v1",
          kind: "Scale",
          metadata: { name: "hello", namespace: "apps" },
          spec: { replicas: 1 },
        }),
      );
    });
    server.on("connection", () => connections++);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    closers.push(() => {
      server.closeAllConnections();
      server.close();
    });
    const api = kubeConfigFor({
      server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    }).makeApiClient(AppsV1Api);
    for (let i = 0; i < 3; i++) {
      const scale = await api.readNamespacedDeploymentScale({ name: "hello", namespace: "apps" });
      expect(scale.spec?.replicas).toBe(1);
    }
    expect(connections).toBe(1);
  });
});
