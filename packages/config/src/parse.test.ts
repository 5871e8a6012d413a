import { describe, expect, it } from "vitest";
import { formatIssues, parseConfig } from "./parse.js";

const hello = {
  name: "hello",
  hosts: ["hello.localhost"],
  containerConcurrency: 10,
  autoscaling: { target: 7, "max-scale": 5, "scale-to-zero-grace-period": "30s" },
  run: { command: ["node", "examples/hello/server.mjs"], env: { STARTUP_DELAY_MS: "800" } },
};

function issuesOf(input: unknown): string[] {
  const r = parseConfig(input);
  if (r.ok) throw new Error("expected issues");
  return r.issues.map((i) => `${i.path}: ${i.message}`);
}

describe("parseConfig", () => {
  it("accepts the design's example and fills in defaults", () => {
    const r = parseConfig({ services: [hello] });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.listen).toBe("127.0.0.1:8080");
    expect(r.value.services[0]).toMatchObject({
      namespace: "default",
      timeoutSeconds: 300,
      paths: [],
      maxQueue: 10_000,
      bodyBufferBytes: 1024 * 1024,
      run: { portEnv: "PORT" },
    });
  });

  it("kubernetes: service, portName and metricsPort are read, with defaults", () => {
    const r = parseConfig({
      services: [{ name: "k", kubernetes: { deployment: "k-dep", service: "k-svc" } }],
    });
    expect(r.ok && r.value.services[0]?.kubernetes).toMatchObject({
      deployment: "k-dep",
      service: "k-svc",
      portName: "http",
      metricsPort: 9090,
    });
  });

  it.each([
    [
      "no services",
      {},
      [
        "services: must list at least one service, or let thaw up find labelled containers with containers: { discover: true }",
      ],
    ],
    [
      "not a mapping",
      "services: x",
      [
        "(top level): must be a mapping with the fields listen, token, autoscaler, trustedProxies, drain, headersTimeout, tunnelIdleTimeout, bodyBufferRevisionBytes, bodyBufferProcessBytes, simulate, warm, containers, services",
      ],
    ],
    [
      "empty services",
      { services: [] },
      [
        "services: must list at least one service, or let thaw up find labelled containers with containers: { discover: true }",
      ],
    ],
    [
      "no services, containers discovered",
      { containers: { discover: false } },
      [
        "services: must list at least one service, or let thaw up find labelled containers with containers: { discover: true }",
      ],
    ],
    [
      "unknown top-level field",
      { services: [hello], listn: "x" },
      ["listn: unknown field (did you mean listen?)"],
    ],
    [
      "trustedProxies entries are addresses or CIDR ranges",
      { trustedProxies: ["10.0.0.0/8", "10.0.0.0/40", "proxy.internal"], services: [hello] },
      [
        'trustedProxies[1]: "10.0.0.0/40": the prefix length must be 0-32',
        'trustedProxies[2]: "proxy.internal" is not an IP address or CIDR range (e.g. 10.0.0.0/8, ::1)',
      ],
    ],
    [
      "trustedProxies must be a list",
      { trustedProxies: "10.0.0.0/8", services: [hello] },
      [
        'trustedProxies: must be a list of IP addresses or CIDR ranges, e.g. [10.0.0.0/8, 127.0.0.1]; got the string "10.0.0.0/8"',
      ],
    ],
    ["bad listen", { listen: "8080", services: [hello] }, ["listen: must be host:port, e.g. 127.0.0.1:8080"]],
    [
      "concurrency out of range",
      { services: [{ ...hello, containerConcurrency: 5000 }] },
      ["services[0].containerConcurrency: must be <= 1000; 0 means unlimited"],
    ],
    [
      "numbers in env must be quoted",
      { services: [{ ...hello, run: { command: ["node"], env: { A: 1 } } }] },
      ['services[0].run.env.A: must be a string; quote numbers, e.g. "800"; got the number 1'],
    ],
    [
      "kubernetes: render fields are checked with their paths",
      {
        services: [
          {
            name: "k",
            kubernetes: {
              deployment: "k",
              containerPort: 0,
              resources: { requests: { cpu: "lots" } },
              readOnlyRootFs: true,
            },
          },
        ],
      },
      [
        "services[0].kubernetes.containerPort: must be >= 1; the port the app listens on (Knative's default 8080)",
        "services[0].kubernetes.resources.requests.cpu: must be a Kubernetes quantity such as 100m, 1, 128Mi",
        "services[0].kubernetes.readOnlyRootFs: unknown field; allowed here: deployment, namespace, kubeconfig, service, portName, metricsPort, image, containerPort, command, args, env, resources, queueProxyResources, runAsUser, readOnlyRootFilesystem, maxUnavailable, labels, annotations",
      ],
    ],
    [
      "kubernetes: labels and annotations keep Kubernetes syntax and leave Thaw's own labels alone",
      {
        services: [
          {
            name: "k",
            kubernetes: {
              deployment: "k",
              labels: { "Bad Key": "x", "app.kubernetes.io/name": "y", ok: "bad value!", team: "pay" },
              annotations: { "a/b/c": "x", "example.com/owner": "pay" },
            },
          },
        ],
      },
      [
        "services[0].kubernetes.labels.Bad Key: must be a Kubernetes key: an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, e.g. team or example.com/team",
        "services[0].kubernetes.labels.app.kubernetes.io/name: is set by thaw k8s render (pod selector and Knative labels); choose another key",
        "services[0].kubernetes.labels.ok: must be a label value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty",
        "services[0].kubernetes.annotations.a/b/c: must be a Kubernetes key: an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, e.g. team or example.com/team",
      ],
    ],
    [
      "no scaler",
      { services: [{ name: "x" }] },
      ["services[0]: needs exactly one of run (local processes), container, kubernetes or webhook"],
    ],
    [
      "two scalers",
      { services: [{ ...hello, webhook: { url: "https://s.example/scale" } }] },
      ["services[0]: needs exactly one of run (local processes), container, kubernetes or webhook"],
    ],
    [
      "kubernetes: bad service, port name and metrics port, each with its path",
      {
        services: [
          {
            name: "k",
            kubernetes: { deployment: "k", service: "K_Svc", portName: "HTTP_PORT", metricsPort: 70000 },
          },
        ],
      },
      [
        "services[0].kubernetes.service: must be a DNS label: lower-case letters, digits and '-', at most 63 characters",
        "services[0].kubernetes.portName: must be a Kubernetes port name: at most 15 lower-case letters, digits and '-', with a letter, e.g. http",
        "services[0].kubernetes.metricsPort: must be <= 65535; the queue-proxy's metrics port, e.g. 9090",
      ],
    ],
    [
      "bad name",
      { services: [{ ...hello, name: "Hello_World" }] },
      ["services[0].name: must be a DNS label: lower-case letters, digits and '-', at most 63 characters"],
    ],
    [
      "duplicate service",
      { services: [hello, { ...hello, hosts: ["other.localhost"] }] },
      ["services[1].name: default/hello is already defined by services[0]"],
    ],
    [
      "duplicate route",
      { services: [hello, { ...hello, name: "two" }] },
      [
        "services[1].hosts: hello.localhost/ is already routed to services[0]; give one of them a path prefix",
      ],
    ],
  ])("%s", (_name, input, expected) => {
    expect(issuesOf(input)).toEqual(expected);
  });

  it("reports every issue at once", () => {
    const issues = issuesOf({
      listen: 1,
      services: [{ ...hello, containerConcurrency: -1, timeoutSeconds: 0, hosts: ["bad host"] }],
    });
    expect(issues).toHaveLength(4);
  });

  it("formats one line per issue with the file name", () => {
    expect(formatIssues([{ path: "services[0].name", message: "m" }], "thaw.config.yaml")).toBe(
      "thaw.config.yaml: services[0].name: m",
    );
  });
});

describe("parseConfig: autoscaling keys through @thaw/autoscaler", () => {
  it.each([
    ["unknown annotation key", { autoscaling: { "max-scal": 3 } }, "services[0].autoscaling.max-scal"],
    ["min above max", { autoscaling: { "min-scale": 4, "max-scale": 2 } }, "services[0].autoscaling."],
    ["bad duration", { autoscaling: { window: "soon" } }, "services[0].autoscaling.window"],
  ])("%s", (_n, patch, path) => {
    const r = parseConfig({ services: [{ ...hello, ...patch }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path).some((p) => p.startsWith(path))).toBe(true);
  });

  it("checks the global autoscaler block with Knative's ranges", () => {
    const r = parseConfig({ autoscaler: { "stable-window": "2s" }, services: [hello] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]?.path).toBe("autoscaler.stable-window");
  });

  it("adds autoscaling issues to schema issues in one run", () => {
    const r = parseConfig({ listen: 1, services: [{ ...hello, autoscaling: { "max-scale": "x" } }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path)).toEqual(["listen", "services[0].autoscaling.max-scale"]);
  });
});

describe("parseConfig: readinessProbe through @thaw/readiness", () => {
  it.each([
    ["two handlers", { httpGet: { path: "/h" }, tcpSocket: {} }],
    ["negative period", { httpGet: { path: "/h" }, periodSeconds: -1 }],
    ["unknown field", { httpGet: { path: "/h" }, bogus: 1 }],
  ])("rejects %s with the probe's field path", (_n, probe) => {
    const r = parseConfig({ services: [{ ...hello, readinessProbe: probe }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.every((i) => i.path.startsWith("services[0].readinessProbe"))).toBe(true);
  });

  it("accepts a probe that Knative's defaulting completes (no successThreshold given)", () => {
    expect(
      parseConfig({ services: [{ ...hello, readinessProbe: { httpGet: { path: "/healthz" } } }] }).ok,
    ).toBe(true);
  });
});

describe("run.queueProxy (a Knative-compatible queue-proxy of the user's choosing)", () => {
  const one = { ...hello, autoscaling: { "max-scale": 1 } };
  const qp = (queueProxy: unknown, base: object = one) => ({
    services: [{ ...base, run: { ...hello.run, queueProxy } }],
  });

  it("accepts a command and defaults the ports to Knative's fixed 8022 and 9090", () => {
    const r = parseConfig(qp({ command: ["/usr/local/bin/queue"] }));
    expect(r.ok && r.value.services[0]?.run?.queueProxy).toEqual({
      command: ["/usr/local/bin/queue"],
      adminPort: 8022,
      metricsPort: 9090,
    });
  });

  it("accepts the annotation form of max-scale", () => {
    const svc = { ...hello, autoscaling: { "autoscaling.knative.dev/max-scale": "1" } };
    expect(parseConfig(qp({ command: ["q"] }, svc)).ok).toBe(true);
  });

  it.each([
    ["no command", qp({ adminPort: 8022 }), ["services[0].run.queueProxy.command: is required"]],
    [
      "an empty command",
      qp({ command: [] }),
      [
        "services[0].run.queueProxy.command: must name the queue-proxy program to start, e.g. [/usr/local/bin/queue]",
      ],
    ],
    [
      "a port out of range",
      qp({ command: ["q"], metricsPort: 70000 }),
      [
        "services[0].run.queueProxy.metricsPort: must be <= 65535; the port of its protobuf Stat (Knative's 9090)",
      ],
    ],
    [
      "an unknown field",
      qp({ command: ["q"], servingPort: 8012 }),
      [
        "services[0].run.queueProxy.servingPort: unknown field; allowed here: command, adminPort, metricsPort",
      ],
    ],
    [
      "max-scale unset (unlimited)",
      qp({ command: ["q"] }, hello),
      [
        "services[0].autoscaling.max-scale: is 5, but run.queueProxy binds the fixed ports 8022 (admin) and 9090 (metrics), so only one pod fits on this machine; set max-scale: 1, or drop run.queueProxy to use thaw-queue-proxy, which many pods can share a machine with",
      ],
    ],
    [
      "max-scale 0 (unlimited)",
      qp({ command: ["q"], adminPort: 18022 }, { ...hello, autoscaling: {} }),
      [
        "services[0].autoscaling.max-scale: is unlimited, but run.queueProxy binds the fixed ports 18022 (admin) and 9090 (metrics), so only one pod fits on this machine; set max-scale: 1, or drop run.queueProxy to use thaw-queue-proxy, which many pods can share a machine with",
      ],
    ],
  ])("refuses %s, naming the field", (_name, input, expected) => {
    expect(issuesOf(input)).toEqual(expected);
  });

  it("refuses two services whose queue-proxies bind the same fixed port", () => {
    const a = { ...one, run: { ...hello.run, queueProxy: { command: ["q"] } } };
    const b = { ...a, name: "other", hosts: ["other.localhost"] };
    expect(issuesOf({ services: [a, b] })).toEqual([
      "services[1].run.queueProxy.adminPort: 8022 is already bound by services[0].run.queueProxy.adminPort; give this queue-proxy other ports (if it can move them)",
      "services[1].run.queueProxy.metricsPort: 9090 is already bound by services[0].run.queueProxy.metricsPort; give this queue-proxy other ports (if it can move them)",
    ]);
  });
});
