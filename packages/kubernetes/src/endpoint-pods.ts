import type { EndpointLike, EndpointSliceLike } from "./types.js";

/** One pod behind a Service, merged over every EndpointSlice (and address family) that lists it. */
export interface EndpointPod {
  /** Stable identity: the targetRef's pod uid or name, else the endpoint's sorted addresses. */
  key: string;
  /** Pod name (targetRef), or the address when the slice names no pod. */
  name: string;
  /** The chosen address (preferred family first). */
  ip: string;
  /** `ip:port` of the named port, IPv6 in brackets. */
  address: string;
  /** Address family of `ip`: IPv4, IPv6 or FQDN. */
  family: string;
  /** `conditions.ready`, unset = true (the documented default). */
  ready: boolean;
  /** `conditions.serving`, unset = the value of ready. */
  serving: boolean;
  /** `conditions.terminating`, unset = false. */
  terminating: boolean;
  /** Ready and not terminating: where new requests may go. */
  routable: boolean;
}

/** Options of {@link podsFromSlices}. */
export interface PodsFromSlicesOptions {
  /** Name of the port in the slices' `ports` (e.g. `http`); undefined = the only port, if there is one. */
  portName?: string;
  /** Families in order of preference (default IPv4, IPv6, FQDN). */
  families?: readonly string[];
}

const DEFAULT_FAMILIES = ["IPv4", "IPv6", "FQDN"];

/**
 * Joins a Service's EndpointSlices into one entry per pod. A dual-stack Service has an IPv4 and an IPv6
 * slice listing the same pods: they are merged by the targetRef (uid, else name), so each pod counts once,
 * and the address of the most preferred family is used (ties broken by address, so the result is the same
 * whatever order the slices came in). Slices without the named port are skipped.
 */
export function podsFromSlices(
  slices: Iterable<EndpointSliceLike>,
  options: PodsFromSlicesOptions = {},
): EndpointPod[] {
  const families = options.families ?? DEFAULT_FAMILIES;
  const rank = (f: string) => {
    const i = families.indexOf(f);
    return i < 0 ? families.length : i;
  };
  const best = new Map<string, { pod: EndpointPod; rank: number }>();
  for (const slice of slices) {
    const port = portOf(slice, options.portName);
    if (port === undefined) continue;
    const r = rank(slice.addressType);
    for (const ep of slice.endpoints ?? []) {
      const ip = [...(ep.addresses ?? [])].sort()[0];
      if (!ip) continue;
      const pod = toPod(ep, ip, port, slice.addressType);
      const seen = best.get(pod.key);
      if (!seen || r < seen.rank || (r === seen.rank && pod.ip < seen.pod.ip))
        best.set(pod.key, { pod, rank: r });
    }
  }
  return [...best.values()].map((b) => b.pod).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function portOf(slice: EndpointSliceLike, name: string | undefined): number | undefined {
  const ports = slice.ports ?? [];
  const p =
    name === undefined ? (ports.length === 1 ? ports[0] : undefined) : ports.find((x) => x.name === name);
  return typeof p?.port === "number" ? p.port : undefined;
}

function toPod(ep: EndpointLike, ip: string, port: number, family: string): EndpointPod {
  const ref = ep.targetRef;
  const key =
    ref?.uid ||
    (ref?.name ? `${ref.namespace ?? ""}/${ref.name}` : `addr:${[...ep.addresses].sort().join(",")}`);
  const ready = ep.conditions?.ready !== false;
  const terminating = ep.conditions?.terminating === true;
  const serving = ep.conditions?.serving ?? ready;
  const host = family === "IPv6" || ip.includes(":") ? `[${ip}]` : ip;
  return {
    key,
    name: ref?.name ?? ip,
    ip,
    address: `${host}:${port}`,
    family,
    ready,
    serving: serving !== false,
    terminating,
    routable: ready && !terminating,
  };
}
