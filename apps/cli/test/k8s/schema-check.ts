import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as k8s from "@kubernetes/client-node";
import { securityPolicySchema } from "./security-policy-schema.js";

const require = createRequire(import.meta.url);

/** A kubernetes-models class: construct, then validate() throws on a schema violation. */
type ModelClass = new (data: Record<string, unknown>) => { validate(): void };

interface KindEntry {
  /** The kubernetes-models module and export that validates the object. */
  model?: [string, string];
  /** The @kubernetes/client-node model whose attribute map lists the known fields (core kinds). */
  clientModel?: string;
  /** The JSON schema to walk for unknown fields (CRDs), read from the kubernetes-models module. */
  crdSchemaFile?: string;
  /** A hand-written schema (no kubernetes-models package). */
  handSchema?: Record<string, unknown>;
  /** Checked as this apiVersion: a newer served version with the same schema that kubernetes-models lacks. */
  checkAs?: string;
}

const CRD = (mod: string) => require.resolve(mod);

/** Every apiVersion/kind the renderer emits, and how each is checked. */
const KINDS: Record<string, KindEntry> = {
  "v1/Namespace": { model: ["kubernetes-models/v1/Namespace", "Namespace"], clientModel: "V1Namespace" },
  "v1/Service": { model: ["kubernetes-models/v1/Service", "Service"], clientModel: "V1Service" },
  "v1/ServiceAccount": {
    model: ["kubernetes-models/v1/ServiceAccount", "ServiceAccount"],
    clientModel: "V1ServiceAccount",
  },
  "v1/ConfigMap": { model: ["kubernetes-models/v1/ConfigMap", "ConfigMap"], clientModel: "V1ConfigMap" },
  "apps/v1/Deployment": {
    model: ["kubernetes-models/apps/v1/Deployment", "Deployment"],
    clientModel: "V1Deployment",
  },
  "policy/v1/PodDisruptionBudget": {
    model: ["kubernetes-models/policy/v1/PodDisruptionBudget", "PodDisruptionBudget"],
    clientModel: "V1PodDisruptionBudget",
  },
  "networking.k8s.io/v1/NetworkPolicy": {
    model: ["kubernetes-models/networking.k8s.io/v1/NetworkPolicy", "NetworkPolicy"],
    clientModel: "V1NetworkPolicy",
  },
  "networking.k8s.io/v1/Ingress": {
    model: ["kubernetes-models/networking.k8s.io/v1/Ingress", "Ingress"],
    clientModel: "V1Ingress",
  },
  "rbac.authorization.k8s.io/v1/Role": {
    model: ["kubernetes-models/rbac.authorization.k8s.io/v1/Role", "Role"],
    clientModel: "V1Role",
  },
  "rbac.authorization.k8s.io/v1/RoleBinding": {
    model: ["kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding", "RoleBinding"],
    clientModel: "V1RoleBinding",
  },
  "gateway.networking.k8s.io/v1/HTTPRoute": {
    model: ["@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRoute", "HTTPRoute"],
    crdSchemaFile: CRD("@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRoute"),
  },
  "gateway.networking.k8s.io/v1beta1/ReferenceGrant": {
    model: [
      "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1beta1/ReferenceGrant",
      "ReferenceGrant",
    ],
    crdSchemaFile: CRD("@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1beta1/ReferenceGrant"),
  },
  "security.istio.io/v1/AuthorizationPolicy": {
    model: ["@kubernetes-models/istio/security.istio.io/v1/AuthorizationPolicy", "AuthorizationPolicy"],
    crdSchemaFile: CRD("@kubernetes-models/istio/security.istio.io/v1/AuthorizationPolicy"),
  },
  // Istio serves networking.istio.io v1 and v1beta1 from one CRD schema; @kubernetes-models/istio 2.3 has
  // only v1beta1, so v1 objects are checked against it.
  "networking.istio.io/v1/Gateway": {
    model: ["@kubernetes-models/istio/networking.istio.io/v1beta1/Gateway", "Gateway"],
    crdSchemaFile: CRD("@kubernetes-models/istio/networking.istio.io/v1beta1/Gateway"),
    checkAs: "networking.istio.io/v1beta1",
  },
  "networking.istio.io/v1/VirtualService": {
    model: ["@kubernetes-models/istio/networking.istio.io/v1beta1/VirtualService", "VirtualService"],
    crdSchemaFile: CRD("@kubernetes-models/istio/networking.istio.io/v1beta1/VirtualService"),
    checkAs: "networking.istio.io/v1beta1",
  },
  "gateway.envoyproxy.io/v1alpha1/SecurityPolicy": { handSchema: securityPolicySchema },
};

type AttributeMap = { name: string; baseName: string; type: string }[];

function attributesOf(model: string): AttributeMap | undefined {
  const cls = (k8s as unknown as Record<string, { getAttributeTypeMap?: () => AttributeMap }>)[model];
  return cls?.getAttributeTypeMap?.();
}

/** Fields of `value` that the client-node model `type` does not declare, as paths. */
function unknownByModel(value: unknown, type: string, path: string, out: string[]): void {
  if (value === null || value === undefined) return;
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (Array.isArray(value))
      value.forEach((v, i) => {
        unknownByModel(v, array[1] as string, `${path}[${i}]`, out);
      });
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    for (const [k, v] of Object.entries(value as object))
      unknownByModel(v, map[1] as string, `${path}.${k}`, out);
    return;
  }
  const attrs = attributesOf(type);
  if (!attrs || typeof value !== "object") return;
  for (const [k, v] of Object.entries(value as object)) {
    const a = attrs.find((x) => x.baseName === k);
    if (!a) out.push(`${path}.${k}`);
    else unknownByModel(v, a.type, `${path}.${k}`, out);
  }
}

type Schema = Record<string, unknown>;

/** Walks a JSON schema: type, enum, required and unknown fields (no additionalProperties = closed). */
function checkSchema(value: unknown, schema: Schema, path: string, out: string[]): void {
  if (value === null || value === undefined) return;
  if (schema.$ref === "ObjectMeta" || JSON.stringify(schema.oneOf ?? "").includes("ObjectMeta")) {
    unknownByModel(value, "V1ObjectMeta", path, out);
    return;
  }
  if (schema["x-kubernetes-int-or-string"]) return;
  const type = schema.type;
  const is = (t: string) =>
    t === "array" ? Array.isArray(value) : t === "integer" ? Number.isInteger(value) : typeof value === t;
  if (typeof type === "string" && !is(type)) {
    out.push(`${path}: expected ${type}, got ${JSON.stringify(value)}`);
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    out.push(`${path}: not one of ${schema.enum}`);
  if (Array.isArray(value) && schema.items) {
    value.forEach((v, i) => {
      checkSchema(v, schema.items as Schema, `${path}[${i}]`, out);
    });
    return;
  }
  if (typeof value !== "object" || Array.isArray(value)) return;
  const props = schema.properties as Record<string, Schema> | undefined;
  for (const r of (schema.required as string[] | undefined) ?? []) {
    if (!(r in value)) out.push(`${path}.${r}: required`);
  }
  for (const [k, v] of Object.entries(value)) {
    const p = props?.[k];
    if (p) checkSchema(v, p, `${path}.${k}`, out);
    else if (schema.additionalProperties && typeof schema.additionalProperties === "object")
      checkSchema(v, schema.additionalProperties as Schema, `${path}.${k}`, out);
    else if (props || schema.additionalProperties === false) out.push(`${path}.${k}`);
  }
}

const crdSchemas = new Map<string, Schema>();

/** The schema a generated kubernetes-models CRD module keeps private, read from its source. */
function crdSchema(file: string): Schema {
  let s = crdSchemas.get(file);
  if (!s) {
    const src = readFileSync(file, "utf8");
    const start = src.indexOf("const schema = ");
    const end = src.indexOf("};\n", start);
    s = JSON.parse(src.slice(start + "const schema = ".length, end + 1)) as Schema;
    crdSchemas.set(file, s);
  }
  return s;
}

/**
 * Every problem with one object: its kind must be known, kubernetes-models' schema must accept it, and it
 * may carry no field the API does not define (client-node's model attributes for core kinds, the CRD's
 * schema for Gateway API and Istio, the hand-written schema for Envoy Gateway's SecurityPolicy).
 */
export function checkObject(given: Record<string, unknown>): string[] {
  const id = `${given.apiVersion}/${given.kind}`;
  const obj = KINDS[id]?.checkAs ? { ...given, apiVersion: KINDS[id]?.checkAs } : given;
  const name = `${id} ${(obj.metadata as { namespace?: string; name?: string } | undefined)?.namespace ?? ""}/${(obj.metadata as { name?: string } | undefined)?.name}`;
  const entry = KINDS[id];
  if (!entry) return [`${name}: no schema for this kind`];
  const out: string[] = [];
  if (entry.model) {
    const [mod, exp] = entry.model;
    const Model = (require(mod) as Record<string, ModelClass>)[exp] as ModelClass;
    try {
      new Model(structuredClone(obj)).validate();
    } catch (err) {
      out.push(`schema: ${(err as Error).message}`);
    }
  }
  const unknown: string[] = [];
  if (entry.clientModel) unknownByModel(obj, entry.clientModel, "", unknown);
  if (entry.crdSchemaFile) checkSchema(obj, crdSchema(entry.crdSchemaFile), "", unknown);
  if (entry.handSchema) checkSchema(obj, entry.handSchema, "", unknown);
  out.push(...unknown.map((u) => `unknown or invalid field ${u}`));
  return out.map((o) => `${name}: ${o}`);
}
