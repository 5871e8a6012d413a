import type { AutoscalerEvent } from "@thaw/autoscaler-service";

/** One line for people per scale or cold-start event; status changes print nothing (the page shows them). */
export function formatEvent(e: AutoscalerEvent): string | undefined {
  const time = new Date(e.at).toISOString().slice(11, 23);
  switch (e.type) {
    case "scale":
      return `${time}  ${e.namespace}/${e.name}  ${e.from} -> ${e.to}  ${e.reason}`;
    case "cold-start":
      return `${time}  ${e.namespace}/${e.name}  first pod ready: cold start ${e.coldStartMs} ms`;
    case "status":
      return undefined;
  }
}
