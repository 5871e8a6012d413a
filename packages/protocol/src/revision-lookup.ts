import { plainError } from "./http-text.js";

/** The error text Kubernetes listers give for a missing revision. */
export function revisionNotFoundMessage(name: string): string {
  return `revision.serving.knative.dev "${name}" not found`;
}

/**
 * The activator's answer when it cannot find the target revision (knative-spec.md d.1): 404
 * `Error getting active endpoint: <error>\n`.
 */
export function activeEndpointNotFoundResponse(error: string): Response {
  return plainError(404, `Error getting active endpoint: ${error}`);
}
