import type { Clock } from "@thaw/clock";

/** A wake-hint rule (thaw.config.yaml `warm[k]`): a request on `path` warms `services` for `ttlSeconds`. */
export interface WarmRule {
  /** Path prefix, matched at a segment boundary (`/login` matches `/login` and `/login/x`, not `/loginx`). */
  path: string;
  /** Lower-case host names the rule applies to; empty = every host. */
  hosts: readonly string[];
  services: readonly { namespace: string; name: string }[];
  ttlSeconds: number;
}

/** A service named as thaw.config.yaml names it: `name` in `default`, or `namespace/name`. */
export function serviceRefOf(s: string): { namespace: string; name: string } {
  const slash = s.indexOf("/");
  return slash < 0
    ? { namespace: "default", name: s }
    : { namespace: s.slice(0, slash), name: s.slice(slash + 1) };
}

/** Sends one hint; the hinter neither waits for nor reads its answer. */
export type SendHint = (service: { namespace: string; name: string }, ttlSeconds: number) => Promise<unknown>;

function pathMatches(prefix: string, path: string): boolean {
  if (path === prefix) return true;
  return path.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`);
}

/**
 * Sends wake hints for requests that match a rule, without holding them. A service is hinted again only
 * once half its TTL has passed, so a busy login page costs one call per half-TTL, not one per request.
 */
export class WarmHinter {
  readonly #sentAt = new Map<string, number>();

  constructor(
    private readonly rules: readonly WarmRule[],
    private readonly send: SendHint,
    private readonly clock: Clock,
  ) {}

  /** Whether some rule applies to requests for `host` (on some path). */
  watches(host: string): boolean {
    return this.rules.some((r) => r.hosts.length === 0 || r.hosts.includes(host));
  }

  /** Hints every service a rule names for this host and path. */
  observe(host: string, path: string): void {
    const now = this.clock.now();
    for (const rule of this.rules) {
      if (rule.hosts.length > 0 && !rule.hosts.includes(host)) continue;
      if (!pathMatches(rule.path, path)) continue;
      for (const svc of rule.services) {
        const key = `${svc.namespace}/${svc.name}`;
        const last = this.#sentAt.get(key);
        if (last !== undefined && now - last < (rule.ttlSeconds * 1000) / 2) continue;
        this.#sentAt.set(key, now);
        // A failed hint costs only warmth: the request it rode on is not affected.
        void this.send(svc, rule.ttlSeconds).catch(() => this.#sentAt.delete(key));
      }
    }
  }
}
