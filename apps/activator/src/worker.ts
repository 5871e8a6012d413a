/**
 * Workers entry of @thaw/activator: the activator app as a module Worker, plus the `RevisionActivator`
 * Durable Object (one per revision) that coordinates capacity, probing and activation.
 */
import { worker } from "./workerd/worker-app.js";

export type { WorkerEnv as Env } from "./workerd/env.js";
export { RevisionActivator } from "./workerd/revision-activator.js";
export default worker;
