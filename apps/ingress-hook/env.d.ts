type WorkerEnv = import("./src/worker.js").Env;
declare namespace Cloudflare {
  interface Env extends WorkerEnv {}
  interface GlobalProps {
    mainModule: typeof import("./src/worker.js");
  }
}
