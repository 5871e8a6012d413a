import type { H1Client } from "@thaw/queue-proxy/http1";
import type { Coordinator } from "../ports.js";

/**
 * Closes the pool of a pod once no revision lists it as ready any more (scaled down, deleted, failing its
 * probe): its idle keep-alive connections would otherwise hold a draining queue-proxy open. Only pods that
 * leave a list are closed, so a destination never listed (a ClusterIP fallback) keeps its pool. Returns
 * the unsubscribe.
 */
export function closeDepartedPods(coordinator: Coordinator, client: Pick<H1Client, "drop">): () => void {
  const ready = new Map<string, readonly string[]>();
  const listed = (dest: string) => {
    for (const eps of ready.values()) if (eps.includes(dest)) return true;
    return false;
  };
  return coordinator.onEndpoints((key, endpoints) => {
    const id = `${key.namespace}/${key.name}`;
    const before = ready.get(id) ?? [];
    if (endpoints.length > 0) ready.set(id, [...endpoints]);
    else ready.delete(id);
    for (const dest of before) if (!endpoints.includes(dest) && !listed(dest)) client.drop(dest);
  });
}
