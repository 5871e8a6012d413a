import { ApiError, type ApiObject, type ObjectInput } from "./store.js";

/** A resource type the emulator serves: its URL prefix and kind. */
export interface ResourceType {
  prefix: string;
  kind: string;
  apiVersion: string;
}

/** The resource types served, by plural name. */
export const RESOURCES: Record<string, ResourceType> = {
  endpointslices: {
    prefix: "/apis/discovery.k8s.io/v1",
    kind: "EndpointSlice",
    apiVersion: "discovery.k8s.io/v1",
  },
  deployments: { prefix: "/apis/apps/v1", kind: "Deployment", apiVersion: "apps/v1" },
  leases: { prefix: "/apis/coordination.k8s.io/v1", kind: "Lease", apiVersion: "coordination.k8s.io/v1" },
  services: { prefix: "/api/v1", kind: "Service", apiVersion: "v1" },
  pods: { prefix: "/api/v1", kind: "Pod", apiVersion: "v1" },
  events: { prefix: "/api/v1", kind: "Event", apiVersion: "v1" },
};

/** A request path taken apart: `/apis/<g>/<v>/namespaces/<ns>/<resource>[/<name>[/<subresource>]]`. */
export interface ParsedPath {
  resource: string;
  type: ResourceType;
  namespace: string;
  name?: string;
  subresource?: string;
}

/** Parses a namespaced resource path; undefined when the emulator serves no such path. */
export function parsePath(path: string): ParsedPath | undefined {
  const m =
    /^(\/api\/v1|\/apis\/[^/]+\/[^/]+)\/namespaces\/([^/]+)\/([^/]+)(?:\/([^/]+)(?:\/([^/]+))?)?$/.exec(path);
  if (!m) return undefined;
  const resource = m[3] as string;
  const type = RESOURCES[resource];
  if (!type || type.prefix !== m[1]) return undefined;
  return {
    resource,
    type,
    namespace: decodeURIComponent(m[2] as string),
    ...(m[4] ? { name: decodeURIComponent(m[4]) } : {}),
    ...(m[5] ? { subresource: m[5] } : {}),
  };
}

const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** What {@link validate} lets through that a real API server refuses (named, for loopback-only tests). */
export interface Leniency {
  /** Accept endpoint addresses in 127.0.0.0/8 and ::1 (a real server answers 422). */
  loopbackEndpoints?: boolean;
}

/** True for 127.0.0.0/8 and ::1 in any IPv6 spelling (including ::ffff:127.x.y.z). */
export function isLoopbackIp(ip: string): boolean {
  const v4 = /^(?:::ffff:)?(\d+)\.\d+\.\d+\.\d+$/i.exec(ip);
  if (v4) return v4[1] === "127";
  return /^(?:0{0,4}:){2,7}0{0,3}1$|^::1$/.test(ip);
}

/** The validation the real API server does on the fields Thaw writes (422 Invalid otherwise). */
export function validate(
  resource: string,
  obj: ObjectInput,
  previous?: ApiObject,
  lenient: Leniency = {},
): void {
  const bad = (field: string, msg: string) => {
    throw new ApiError(
      422,
      `${RESOURCES[resource]?.kind} "${obj.metadata?.name}" is invalid: ${field}: ${msg}`,
      "Invalid",
    );
  };
  if (resource === "endpointslices") {
    const t = obj.addressType;
    if (t !== "IPv4" && t !== "IPv6" && t !== "FQDN")
      bad("addressType", `Unsupported value: ${JSON.stringify(t)}`);
    if (previous && previous.addressType !== t) bad("addressType", "field is immutable");
    if (!Array.isArray(obj.endpoints)) bad("endpoints", "Required value");
    if (!lenient.loopbackEndpoints && t !== "FQDN") {
      (obj.endpoints as { addresses?: unknown }[]).forEach((e, i) => {
        (Array.isArray(e?.addresses) ? e.addresses : []).forEach((a, j) => {
          if (typeof a === "string" && isLoopbackIp(a))
            bad(
              `endpoints[${i}].addresses[${j}]`,
              `Invalid value: "${a}": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
            );
        });
      });
    }
  }
  if (resource === "deployments") {
    const r = (obj.spec as { replicas?: unknown } | undefined)?.replicas;
    if (r !== undefined && (!Number.isInteger(r) || (r as number) < 0))
      bad("spec.replicas", "must be greater than or equal to 0");
  }
  if (resource === "leases") {
    const spec = (obj.spec ?? {}) as Record<string, unknown>;
    for (const f of ["acquireTime", "renewTime"]) {
      const v = spec[f];
      if (v !== undefined && v !== null && (typeof v !== "string" || !MICRO_TIME.test(v))) {
        bad(`spec.${f}`, `must be a MicroTime (RFC 3339), got ${JSON.stringify(v)}`);
      }
    }
    const d = spec.leaseDurationSeconds;
    if (d !== undefined && d !== null && (!Number.isInteger(d) || (d as number) <= 0)) {
      bad("spec.leaseDurationSeconds", "must be greater than 0");
    }
  }
}

/** JSON merge patch (RFC 7386): objects merge, `null` deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target && typeof target === "object" && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/**
 * A PATCH body applied to the current object. Merge patch is the one Thaw sends; strategic merge behaves
 * the same for the scalar fields patched here; JSON patch is not emulated (415).
 */
export function applyPatch(
  cur: ApiObject | object,
  body: unknown,
  contentType: string | undefined,
): ApiObject {
  const ct = (contentType ?? "").split(";")[0]?.trim();
  if (ct !== "application/merge-patch+json" && ct !== "application/strategic-merge-patch+json") {
    throw new ApiError(
      415,
      `the emulator does not accept PATCH bodies of type ${JSON.stringify(ct)}`,
      "UnsupportedMediaType",
    );
  }
  return mergePatch(cur, body) as ApiObject;
}
