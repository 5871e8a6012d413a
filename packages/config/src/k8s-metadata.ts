import * as v from "valibot";

/** `[prefix/]name`: prefix a DNS subdomain of at most 253 characters, name at most 63 alphanumerics, '-', '_', '.'. */
const NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function qualifiedName(key: string): boolean {
  const slash = key.lastIndexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length > 253 || !PREFIX.test(prefix))) return false;
  return NAME_PART.test(name);
}

const KEY_RULE =
  "must be a Kubernetes key: an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, e.g. team or example.com/team";

/** Keys Thaw sets itself: its pod selector and part-of labels, and Knative's serving labels. */
function thawOwned(key: string): boolean {
  return (
    key === "app.kubernetes.io/name" ||
    key === "app.kubernetes.io/part-of" ||
    key.startsWith("serving.knative.dev/")
  );
}

const labelKey = v.pipe(
  v.string(),
  v.check(qualifiedName, KEY_RULE),
  v.check(
    (k) => !thawOwned(k),
    "is set by thaw k8s render (pod selector and Knative labels); choose another key",
  ),
);

/** `kubernetes.labels`: extra labels on the rendered Deployment and its pods. */
export const labels = v.record(
  labelKey,
  v.pipe(
    v.string('must be a string; quote numbers and true/false, e.g. "1"'),
    v.regex(
      /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/,
      "must be a label value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty",
    ),
  ),
  "must be a mapping of label keys to values",
);

/** `kubernetes.annotations`: extra annotations on the rendered Deployment and its pods. */
export const annotations = v.record(
  v.pipe(v.string(), v.check(qualifiedName, KEY_RULE)),
  v.pipe(
    v.string('must be a string; quote numbers and true/false, e.g. "1"'),
    v.maxLength(64 * 1024, "must be at most 64 KiB"),
  ),
  "must be a mapping of annotation keys to values",
);
