import { describe, expect, it } from "vitest";
import { clusterIPAddress } from "./service-address.js";

const svc = (clusterIP: string | undefined, ports: { name?: string; port?: number }[]) => ({
  metadata: { name: "hello-private" },
  spec: { ...(clusterIP === undefined ? {} : { clusterIP }), ports },
});

describe("clusterIPAddress: a Service's clusterIP:port for the activator's ClusterIP fallback", () => {
  it("takes the named port, or the only one when no name is given", () => {
    const s = svc("10.96.0.12", [
      { name: "http", port: 80 },
      { name: "metrics", port: 9090 },
    ]);
    expect(clusterIPAddress(s, "http")).toBe("10.96.0.12:80");
    expect(clusterIPAddress(s, "metrics")).toBe("10.96.0.12:9090");
    expect(clusterIPAddress(s)).toBeUndefined();
    expect(clusterIPAddress(svc("10.96.0.12", [{ port: 80 }]))).toBe("10.96.0.12:80");
  });

  it("brackets IPv6; none for a headless Service, no ClusterIP yet, a missing port or no Service", () => {
    expect(clusterIPAddress(svc("fd00::12", [{ name: "http", port: 80 }]), "http")).toBe("[fd00::12]:80");
    expect(clusterIPAddress(svc("None", [{ name: "http", port: 80 }]), "http")).toBeUndefined();
    expect(clusterIPAddress(svc(undefined, [{ name: "http", port: 80 }]), "http")).toBeUndefined();
    expect(clusterIPAddress(svc("10.96.0.12", [{ name: "http", port: 80 }]), "grpc")).toBeUndefined();
    expect(clusterIPAddress(undefined, "http")).toBeUndefined();
  });
});
