import { type HeaderSource, headersOf } from "./classify.js";
import { Header } from "./headers.js";

/** Metric/span attribute the route tag goes into. */
export const ROUTE_TAG_ATTRIBUTE = "kn.route.tag";

/** Labels of the route-tag attribute when the request carries no usable tag. */
export const RouteTagLabel = {
  disabled: "kn:disabled",
  default: "kn:default",
  undefined: "kn:undefined",
} as const;

/**
 * The `kn.route.tag` value for a request (knative-spec.md c.8): neither header = `kn:disabled`; only the
 * default-route header = `kn:default`; a tag together with default-route `true` = `kn:undefined`; else the tag.
 */
export function routeTagLabel(source: HeaderSource): string {
  const headers = headersOf(source);
  const tag = headers.get(Header.routeTag) ?? "";
  const defaultRoute = headers.get(Header.defaultRoute) ?? "";
  if (tag === "") return defaultRoute === "" ? RouteTagLabel.disabled : RouteTagLabel.default;
  return defaultRoute === "true" ? RouteTagLabel.undefined : tag;
}
