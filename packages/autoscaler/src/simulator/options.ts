import { parseAutoscalingBlock } from "../autoscaling-block.js";
import { DEFAULT_AUTOSCALER_CONFIG, parseAutoscalerConfig } from "../config.js";
import { parseGoDuration } from "../duration.js";
import type { Issue, ParseResult } from "../issues.js";
import { parseSchedules } from "../schedule/schedule.js";
import type { SimulationOptions } from "./simulate.js";

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function durationField(v: unknown, path: string, issues: Issue[]): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === "number" && v >= 0) return v;
  const ms = typeof v === "string" ? parseGoDuration(v) : undefined;
  if (ms === undefined || ms < 0) {
    issues.push({ path, message: "must be a Go duration such as 800ms or 2s (or a number of ms)" });
    return undefined;
  }
  return ms;
}

/**
 * Builds simulation options from a parsed config document: either a thaw.config.yaml (`autoscaler:`,
 * `services:`; the service is chosen by `serviceName`, else the first) or a single service object
 * (`containerConcurrency`, `autoscaling`, optional `autoscaler`). The pod start-up delay comes from
 * `simulate.startupDelay`, else the service's `run.env.STARTUP_DELAY_MS`, else 0. The service's `schedules`
 * apply from `simulate.start` (the wall-clock instant of trace time 0; default the epoch).
 */
export function simulationOptionsFrom(doc: unknown, serviceName?: string): ParseResult<SimulationOptions> {
  const issues: Issue[] = [];
  if (!isRecord(doc)) return { ok: false, issues: [{ path: "", message: "the config must be a mapping" }] };
  let service: Record<string, unknown> = doc;
  let servicePath = "";
  if (Array.isArray(doc.services)) {
    const list = doc.services as unknown[];
    const i = serviceName === undefined ? 0 : list.findIndex((s) => isRecord(s) && s.name === serviceName);
    if (i < 0 || !isRecord(list[i])) {
      const what =
        serviceName === undefined ? "no services" : `no service named ${JSON.stringify(serviceName)}`;
      return { ok: false, issues: [{ path: "services", message: what }] };
    }
    service = list[i] as Record<string, unknown>;
    servicePath = `services[${i}].`;
  }
  let base = DEFAULT_AUTOSCALER_CONFIG;
  if (doc.autoscaler !== undefined) {
    if (!isRecord(doc.autoscaler)) issues.push({ path: "autoscaler", message: "must be a mapping" });
    else {
      const c = parseAutoscalerConfig(doc.autoscaler, DEFAULT_AUTOSCALER_CONFIG, { rejectUnknownKeys: true });
      if (c.ok) base = c.value;
      else for (const i of c.issues) issues.push({ path: `autoscaler.${i.path}`, message: i.message });
    }
  }
  const block = service.autoscaling ?? {};
  let config = { ...base };
  let annotations = {};
  if (!isRecord(block)) issues.push({ path: `${servicePath}autoscaling`, message: "must be a mapping" });
  else {
    const b = parseAutoscalingBlock(block, base, `${servicePath}autoscaling`);
    if (b.ok) {
      config = b.value.config;
      annotations = b.value.annotations;
    } else issues.push(...b.issues);
  }
  const ccRaw = service.containerConcurrency ?? 0;
  const cc = typeof ccRaw === "number" && Number.isInteger(ccRaw) && ccRaw >= 0 ? ccRaw : undefined;
  if (cc === undefined) {
    issues.push({
      path: `${servicePath}containerConcurrency`,
      message: "must be a whole number ≥ 0 (0 = unlimited)",
    });
  }
  const sim = isRecord(doc.simulate) ? doc.simulate : {};
  const run = isRecord(service.run) ? service.run : {};
  const env = isRecord(run.env) ? run.env : {};
  let startup = durationField(sim.startupDelay, "simulate.startupDelay", issues);
  if (startup === undefined && env.STARTUP_DELAY_MS !== undefined) {
    const v = Number(env.STARTUP_DELAY_MS);
    if (Number.isFinite(v) && v >= 0) startup = v;
    else
      issues.push({ path: `${servicePath}run.env.STARTUP_DELAY_MS`, message: "must be a number of ms ≥ 0" });
  }
  const tick = durationField(sim.tick, "simulate.tick", issues);
  const schedules = parseSchedules(
    service.schedules,
    `${servicePath}schedules`,
    (annotations as { maxScale?: number }).maxScale ?? config.maxScale,
  );
  if (!schedules.ok) issues.push(...schedules.issues);
  let startEpochMs: number | undefined;
  if (sim.start !== undefined) {
    startEpochMs = typeof sim.start === "string" ? Date.parse(sim.start) : Number.NaN;
    if (!Number.isFinite(startEpochMs)) {
      issues.push({
        path: "simulate.start",
        message: "must be an ISO 8601 instant such as 2026-12-07T06:00:00Z",
      });
    }
  }
  const initial = sim.initialReplicas;
  if (initial !== undefined && !(typeof initial === "number" && Number.isInteger(initial) && initial >= 0)) {
    issues.push({ path: "simulate.initialReplicas", message: "must be a whole number ≥ 0" });
  }
  if (issues.length > 0) return { ok: false, issues };
  const opts: SimulationOptions = {
    config,
    annotations,
    containerConcurrency: cc ?? 0,
    startupDelayMs: startup ?? 0,
  };
  if (tick !== undefined) opts.tickMs = tick;
  if (typeof initial === "number") opts.initialReplicas = initial;
  if (schedules.ok && schedules.value.length > 0) opts.schedules = schedules.value;
  if (startEpochMs !== undefined) opts.startEpochMs = startEpochMs;
  return { ok: true, value: opts };
}
