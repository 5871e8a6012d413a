/**
 * Adapter for readiness-probe.json: encoding, reconciler rewrite, defaulting and validation run against
 * @thaw/readiness's pure functions; execution vectors run the prober against real loopback servers
 * (readiness-probe-exec.ts).
 */
import {
  applyRevisionDefaults,
  type Container,
  decodeProbeEnv,
  encodeProbeEnv,
  type Probe,
  parseProbe,
  queueProxyOwnProbe,
  queueProxyProbeEnv,
  queueServingPortOf,
  type RevisionLimits,
  type RevisionSpec,
  renderFieldErrors,
  userContainerProbes,
  validateContainer,
  validateRevisionBounds,
} from "@thaw/readiness";
import { diff } from "../compare.js";
import { dispatch, type Kind } from "../shape.js";
import { type Adapter, fail, type Outcome, pass, type Vector } from "../types.js";
import { EXECUTION_KINDS } from "./readiness-probe-exec.js";

function features(input: Record<string, unknown>): { multi: boolean } | string {
  const f = (input.features ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(f)) {
    if (k !== "multi-container-probing") return `unknown feature ${k}`;
    if (v !== "enabled" && v !== "disabled") return `unknown value ${String(v)} of ${k}`;
  }
  return { multi: f["multi-container-probing"] === "enabled" };
}

function typedProbe(raw: unknown, path: string): Probe {
  const r = parseProbe(raw, { path });
  if (!r.ok) throw new Error(`vector probe does not parse: ${JSON.stringify(r.issues)}`);
  return r.value;
}

function typedContainer(raw: Record<string, unknown>, path: string): Container {
  const c: Container = { ...raw } as Container;
  for (const k of ["readinessProbe", "livenessProbe", "startupProbe"] as const) {
    if (raw[k] !== undefined) c[k] = typedProbe(raw[k], `${path}.${k}`);
  }
  return c;
}

function decode(v: Vector): Outcome {
  const r = decodeProbeEnv(String(v.input.env), v.input.multiContainer === true);
  if (v.expect.error === true)
    return r.ok ? fail(`expected an error, decoded ${JSON.stringify(r.value)}`) : pass;
  if (!r.ok) return fail(`decode failed: ${JSON.stringify(r.issues)}`);
  const d = diff(r.value, v.expect.probes);
  return d ? fail(d) : pass;
}

function encode(v: Vector): Outcome {
  const raw = "probe" in v.input ? v.input.probe : v.input.probes;
  let typed: Probe | Probe[] | null | undefined;
  if (raw === null || raw === undefined) typed = raw;
  else if (Array.isArray(raw)) typed = raw.map((p, i) => typedProbe(p, `probes[${i}]`));
  else typed = typedProbe(raw, "probe");
  const r = encodeProbeEnv(typed);
  const json = r.ok ? r.value : "";
  const d = diff({ error: !r.ok, json }, { error: v.expect.error === true, json: v.expect.json });
  return d ? fail(d) : pass;
}

function queueGeneration(v: Vector): Outcome {
  const f = features(v.input);
  if (typeof f === "string") return fail(f);
  const { sidecars, ...rawServing } = v.input.servingContainer as Record<string, unknown>;
  const serving = typedContainer(rawServing, "servingContainer");
  const side = ((sidecars ?? []) as Record<string, unknown>[]).map((s, i) =>
    typedContainer(s, `sidecars[${i}]`),
  );
  const cc = v.input.containerConcurrency;
  const r = queueProxyProbeEnv({
    serving,
    sidecars: side,
    multiContainerProbing: f.multi,
    ...(typeof cc === "number" ? { containerConcurrency: cc } : {}),
  });
  if (!r.ok) return fail(`queueProxyProbeEnv failed: ${JSON.stringify(r.issues)}`);
  const env = r.value;
  const expectedEnv = { ...((v.expect.env ?? {}) as Record<string, string>) };
  if (v.expect.SERVING_READINESS_PROBE !== undefined)
    expectedEnv.SERVING_READINESS_PROBE = String(v.expect.SERVING_READINESS_PROBE);
  for (const [k, want] of Object.entries(expectedEnv)) {
    if (env[k] !== want)
      return fail(`env ${k}: expected ${JSON.stringify(want)}, got ${JSON.stringify(env[k])}`);
  }
  if (v.expect.queueReadinessProbe !== undefined) {
    const own = queueProxyOwnProbe(serving.readinessProbe, queueServingPortOf(serving));
    const d = diff(own, v.expect.queueReadinessProbe, "$.queueReadinessProbe");
    if (d) return fail(d);
  }
  if (v.expect.userContainerProbes !== undefined) {
    // What kubelet still runs on the user container once the queue-proxy owns readiness (b.3).
    const left = userContainerProbes(serving, Number(env.USER_PORT), { multiContainerProbing: f.multi });
    const d = diff(left, v.expect.userContainerProbes, "$.userContainerProbes");
    if (d) return fail(d);
  }
  return pass;
}

/** Revision-level bounds (b.2): `timeoutSeconds` and `containerConcurrency` against config-defaults. */
function revisionBounds(v: Vector): Outcome {
  const errors = validateRevisionBounds(
    v.input.revisionSpec as { timeoutSeconds?: number; containerConcurrency?: number },
    (v.input.limits ?? {}) as RevisionLimits,
  );
  const got = errors.length === 0 ? null : renderFieldErrors(errors);
  return got === v.expect.error
    ? pass
    : fail(`expected ${JSON.stringify(v.expect.error)}\n got ${JSON.stringify(got)}`);
}

function defaulting(v: Vector): Outcome {
  const out = applyRevisionDefaults(v.input.spec as RevisionSpec);
  const d = diff(out, v.expect.spec, "$.spec");
  return d ? fail(d) : pass;
}

function validation(v: Vector): Outcome {
  const f = features(v.input);
  if (typeof f === "string") return fail(f);
  // Which validator runs is an input: `role`, else the serving container's, unless the vector comes from
  // a sidecar test (the public vectors say so only in their source); see tools/conformance/README.md.
  const role = v.input.role ?? (/sidecar/i.test(v.source) ? "sidecar" : "serving");
  if (role !== "serving" && role !== "sidecar" && role !== "init")
    return fail(`input.role must be serving, sidecar or init, got ${String(role)}`);
  const got = validateContainer(v.input.container, { role, multiContainerProbing: f.multi });
  const want = v.expect.error ?? null;
  return got === want ? pass : fail(`expected ${JSON.stringify(want)}\n got ${JSON.stringify(got)}`);
}

/** Every kind readiness-probe.json holds, by the shape of its input and expect. */
export const kinds: readonly Kind[] = [
  {
    name: "SERVING_READINESS_PROBE decoding",
    input: ["env"],
    optionalInput: ["multiContainer"],
    expect: [],
    optionalExpect: ["probes", "error"],
    run: decode,
  },
  { name: "probe encoding", input: ["probe"], expect: ["json"], optionalExpect: ["error"], run: encode },
  {
    name: "probe list encoding",
    input: ["probes"],
    expect: ["json"],
    optionalExpect: ["error"],
    run: encode,
  },
  {
    name: "queue probe generation",
    input: ["servingContainer"],
    optionalInput: ["features", "containerConcurrency"],
    expect: [],
    optionalExpect: ["SERVING_READINESS_PROBE", "queueReadinessProbe", "env", "userContainerProbes"],
    run: queueGeneration,
  },
  { name: "revision defaulting", input: ["spec"], expect: ["spec"], run: defaulting },
  {
    name: "container validation",
    input: ["container"],
    optionalInput: ["features", "role"],
    expect: ["error"],
    run: validation,
  },
  {
    name: "revision bounds validation",
    input: ["revisionSpec"],
    optionalInput: ["limits"],
    expect: ["error"],
    run: revisionBounds,
  },
  ...EXECUTION_KINDS,
];

/** Routes each vector by the shape of its input and expect. */
export const adapter: Adapter = { run: (v) => dispatch(kinds, v) };
