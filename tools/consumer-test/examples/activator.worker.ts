// The entry of your own wrangler project (`main` in wrangler.jsonc): the activator's Worker and its
// Durable Object class, re-exported so wrangler bundles them with your bindings.

export type { Env } from "@thaw/activator/workerd";
export { default, RevisionActivator } from "@thaw/activator/workerd";
