import { ANNOTATION_KEYS, AUTOSCALING_PREFIX, type Issue, parseAnnotations } from "@thaw/autoscaler";

/** What a Deployment's `autoscaling.knative.dev/*` annotations add to a service's `autoscaling:` block. */
export interface AnnotationOverrides {
  /** Keys without the prefix (kebab-case), values as written; only the ones that parsed. */
  block: Record<string, string>;
  /** One per annotation that was left out, its path naming the object and the annotation. */
  issues: Issue[];
}

const kebab = (k: string) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * Reads the Knative autoscaling annotations of an object (`where` names it in issues, e.g.
 * `deployment apps/hello`). Values are checked by @thaw/autoscaler's annotation parser, the one
 * thaw.config.yaml goes through; a value that fails is reported and left out, so the config applies.
 */
export function annotationOverrides(
  annotations: Readonly<Record<string, string>> | undefined,
  where: string,
): AnnotationOverrides {
  const known = new Set(ANNOTATION_KEYS);
  const block: Record<string, string> = {};
  const full: Record<string, string> = {};
  const issues: Issue[] = [];
  for (const [key, value] of Object.entries(annotations ?? {})) {
    if (!key.startsWith(AUTOSCALING_PREFIX)) continue;
    const k = kebab(key.slice(AUTOSCALING_PREFIX.length));
    if (!known.has(k)) {
      issues.push({
        path: `${where}: annotation ${key}`,
        message: `unknown Knative autoscaling annotation, ignored; known: ${ANNOTATION_KEYS.join(", ")}`,
      });
      continue;
    }
    block[k] = value;
    full[AUTOSCALING_PREFIX + k] = value;
  }
  for (const i of parseAnnotations(full).issues) {
    delete block[i.path.slice(AUTOSCALING_PREFIX.length)];
    issues.push({
      path: `${where}: annotation ${i.path}`,
      message: `${i.message}; the config's value applies`,
    });
  }
  return { block, issues };
}

/** The config's `autoscaling:` block with `overrides` on top (an annotation wins over the same key in config). */
export function withOverrides(
  block: Readonly<Record<string, unknown>>,
  overrides: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(block)) {
    const bare = k.startsWith(AUTOSCALING_PREFIX) ? k.slice(AUTOSCALING_PREFIX.length) : k;
    if (!(bare in overrides)) out[k] = v;
  }
  return { ...out, ...overrides };
}
