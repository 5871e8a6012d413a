type ActivatorWorkerEnv = import("./src/workerd/env.js").WorkerEnv;
declare namespace Cloudflare {
  interface Env extends ActivatorWorkerEnv {}
  interface GlobalProps {
    mainModule: typeof import("./src/worker.js");
    durableNamespaces: "RevisionActivator";
  }
}
