import type { ServiceLike } from "./types.js";

/**
 * The `clusterIP:port` of a Service's named port (undefined name = its only port), IPv6 in brackets;
 * undefined for a headless Service (`None`), one without a ClusterIP yet, or no such port.
 */
export function clusterIPAddress(service: ServiceLike | undefined, portName?: string): string | undefined {
  const ip = service?.spec?.clusterIP;
  if (!ip || ip === "None") return undefined;
  const ports = service?.spec?.ports ?? [];
  const p =
    portName === undefined
      ? ports.length === 1
        ? ports[0]
        : undefined
      : ports.find((x) => x.name === portName);
  if (typeof p?.port !== "number") return undefined;
  return `${ip.includes(":") ? `[${ip}]` : ip}:${p.port}`;
}
