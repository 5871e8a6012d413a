import { describe, expect, it } from "vitest";
import type { ContainerInspect } from "./engine-api.js";
import { appHostPort, isOurReplica, replicaBody, replicaName } from "./replica.js";

function inspect(o: {
  name?: string;
  labels?: Record<string, string>;
  env?: string[];
  host?: boolean;
  bindings?: Record<string, { HostIp: string; HostPort: string }[]>;
}): ContainerInspect {
  return {
    Id: "abc",
    Name: `/${o.name ?? "web"}`,
    State: { Status: "exited", Running: false, Pid: 0, ExitCode: 0 },
    Config: {
      Hostname: "abc",
      Image: "localhost/app:1",
      Labels: o.labels ?? null,
      Env: o.env ?? null,
      StopSignal: "SIGQUIT",
      StopTimeout: 20,
    },
    HostConfig: o.host ? { NetworkMode: "host" } : { NetworkMode: "bridge", PortBindings: o.bindings ?? {} },
  };
}

describe("container replicas (Compose's --scale convention)", () => {
  it.each([
    ["a Compose name ending in -1", "app-web-1", 2, "app-web-2"],
    ["an old Compose name ending in _1", "app_web_1", 3, "app_web-3"],
    ["a plain name", "web1", 2, "web1-2"],
    ["a name ending in -11 is not replica 1", "web-11", 2, "web-11-2"],
  ])("%s", (_, first, n, want) => {
    expect(replicaName(first, n)).toBe(want);
  });

  it("a copy of a host-network container gets its own PORT and Thaw's labels; image, stop signal kept", () => {
    const first = inspect({ host: true, env: ["PORT=8080", "A=1"], labels: { "thaw.enable": "true" } });
    const body = replicaBody(first, { firstName: "web", index: 2, port: 8080, hostPort: 40001 });
    expect(body.Env).toEqual(["A=1", "PORT=40001"]);
    expect(body.Labels).toEqual({ "thaw.enable": "true", "thaw.replica-of": "web", "thaw.replica": "2" });
    expect(body.Image).toBe("localhost/app:1");
    expect(body.StopSignal).toBe("SIGQUIT");
    expect(body.StopTimeout).toBe(20);
    expect(body.Hostname).toBeUndefined();
  });

  it("Podman's ulimit names (RLIMIT_NOFILE) are given back as create takes them (nofile)", () => {
    const first = inspect({ host: true });
    first.HostConfig.Ulimits = [{ Name: "RLIMIT_NOFILE", Soft: 20000, Hard: 20000 }];
    const body = replicaBody(first, { firstName: "web", index: 2, port: 8080, hostPort: 40001 });
    expect((body.HostConfig as { Ulimits: unknown }).Ulimits).toEqual([
      { Name: "nofile", Soft: 20000, Hard: 20000 },
    ]);
  });

  it("a copy of a published container publishes only the app's port, on its own host port", () => {
    const first = inspect({
      bindings: {
        "8080/tcp": [{ HostIp: "127.0.0.1", HostPort: "18080" }],
        "9090/tcp": [{ HostIp: "", HostPort: "19090" }],
      },
      labels: { "com.docker.compose.container-number": "1" },
    });
    const body = replicaBody(first, { firstName: "app-web-1", index: 3, port: 8080, hostPort: 40002 });
    expect((body.HostConfig as { PortBindings: unknown }).PortBindings).toEqual({
      "8080/tcp": [{ HostIp: "127.0.0.1", HostPort: "40002" }],
    });
    expect((body.Labels as Record<string, string>)["com.docker.compose.container-number"]).toBe("3");
  });

  it("a container is Thaw's replica only with its name and both labels", () => {
    const labels = { "thaw.replica-of": "web", "thaw.replica": "2" };
    expect(isOurReplica(inspect({ name: "web-2", labels }), "web", 2)).toBe(true);
    expect(isOurReplica(inspect({ name: "web-2", labels: { "thaw.replica-of": "web" } }), "web", 2)).toBe(
      false,
    );
    expect(isOurReplica(inspect({ name: "web-2" }), "web", 2)).toBe(false);
    expect(isOurReplica(inspect({ name: "web-9", labels }), "web", 2)).toBe(false);
  });

  it("the app's host port: the container's own with host networking, a copy's PORT, or the published one", () => {
    expect(appHostPort(inspect({ host: true, env: ["PORT=1"] }), 8080)).toBe(8080);
    const copy = inspect({ host: true, env: ["PORT=40001"], labels: { "thaw.replica": "2" } });
    expect(appHostPort(copy, 8080)).toBe(40001);
    const pub = inspect({ bindings: { "8080/tcp": [{ HostIp: "127.0.0.1", HostPort: "18080" }] } });
    expect(appHostPort(pub, 8080)).toBe(18080);
    expect(appHostPort(pub, 9000)).toBeUndefined();
  });
});
