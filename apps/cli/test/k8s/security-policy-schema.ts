/**
 * Envoy Gateway's `SecurityPolicy` (gateway.envoyproxy.io/v1alpha1) has no kubernetes-models package, so
 * this is a small hand-written schema of the fields the renderer uses, taken from Envoy Gateway's
 * documented API (SecurityPolicySpec: targetRefs, extAuth; ExtAuth: http, grpc, headersToExtAuth,
 * failOpen, recomputeRoute (Envoy Gateway 1.2+); HTTPExtAuthService: backendRefs, path, headersToBackend). Anything else is an unknown field.
 */
export const securityPolicySchema = {
  type: "object",
  required: ["apiVersion", "kind", "metadata", "spec"],
  properties: {
    apiVersion: { type: "string", enum: ["gateway.envoyproxy.io/v1alpha1"] },
    kind: { type: "string", enum: ["SecurityPolicy"] },
    metadata: { $ref: "ObjectMeta" },
    spec: {
      type: "object",
      required: ["targetRefs", "extAuth"],
      properties: {
        targetRefs: {
          type: "array",
          items: {
            type: "object",
            required: ["group", "kind", "name"],
            properties: {
              group: { type: "string" },
              kind: { type: "string" },
              name: { type: "string" },
              sectionName: { type: "string" },
            },
          },
        },
        extAuth: {
          type: "object",
          properties: {
            http: {
              type: "object",
              required: ["backendRefs"],
              properties: {
                backendRefs: {
                  type: "array",
                  items: {
                    type: "object",
                    required: ["name", "port"],
                    properties: {
                      group: { type: "string" },
                      kind: { type: "string" },
                      name: { type: "string" },
                      namespace: { type: "string" },
                      port: { type: "integer" },
                    },
                  },
                },
                path: { type: "string" },
                headersToBackend: { type: "array", items: { type: "string" } },
              },
            },
            headersToExtAuth: { type: "array", items: { type: "string" } },
            failOpen: { type: "boolean" },
            recomputeRoute: { type: "boolean" },
          },
        },
      },
    },
  },
} as const;
