import type { RenderOptions } from "./options.js";

/** A Kubernetes name rule: the pattern, its longest length, and the words an error gives for it. */
interface NameRule {
  re: RegExp;
  max: number;
  says: string;
}

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A DNS-1123 label (namespaces): what the API server checks on a namespace name. */
const DNS_LABEL: NameRule = {
  re: LABEL,
  max: 63,
  says: "a DNS-1123 label: lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters",
};
/** A DNS-1123 subdomain (IngressClass and Gateway names). */
const DNS_SUBDOMAIN: NameRule = {
  re: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
  max: 253,
  says: "a DNS-1123 subdomain: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters",
};

/** An image tag, as the OCI distribution reference grammar has it. */
const TAG = /^[\w][\w.-]{0,127}$/;
/** `[host[:port]/]path`: domain components, an optional port, then lower-case path components. */
const DOMAIN =
  "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?";
const PATH = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const REGISTRY = new RegExp(`^(?:${DOMAIN}|${PATH})(?:/${PATH})*$`);

function checkName(flag: string, value: string, rule: NameRule): string | undefined {
  if (value.length <= rule.max && rule.re.test(value)) return undefined;
  return `${flag} ${JSON.stringify(value)} is not ${rule.says}`;
}

/**
 * The first render option that would write an object the API server refuses (or an image no registry can
 * serve), as one line naming the flag, the value and the rule; undefined when every option is valid.
 */
export function renderOptionError(o: RenderOptions): string | undefined {
  const checks: (string | undefined)[] = [
    checkName("--system-namespace", o.systemNamespace, DNS_LABEL),
    checkName("--istio-namespace", o.istioNamespace, DNS_LABEL),
    ...o.ingressNamespaces.map((n) => checkName("--ingress-namespaces", n, DNS_LABEL)),
    checkName("--ingress-class", o.ingressClass, DNS_SUBDOMAIN),
    checkName("--gateway", o.gateway.namespace, DNS_LABEL),
    checkName("--gateway", o.gateway.name, DNS_SUBDOMAIN),
    REGISTRY.test(o.imageRegistry) && o.imageRegistry.length <= 255
      ? undefined
      : `--image-registry ${JSON.stringify(o.imageRegistry)} is not an image repository prefix: [host[:port]/]owner, lower-case path components separated by '/', e.g. ghcr.io/you`,
    TAG.test(o.imageTag)
      ? undefined
      : `--image-tag ${JSON.stringify(o.imageTag)} is not an image tag: letters, digits, '_', '.' and '-', not starting with '.' or '-', at most 128 characters`,
  ];
  if (o.ingressNamespaces.length === 0) {
    checks.unshift("--ingress-namespaces is empty: name at least one namespace, e.g. ingress-nginx");
  }
  return checks.find((c) => c !== undefined);
}
