/** @thaw/ingress-hook/node: the forward-auth service on Node and its config-file loader. */
export { loadHookConfig, serviceRoutesOf, warmRulesOf } from "./config-file.js";
export { nodeConnectionEnded } from "./connection-ended.js";
export {
  createHook,
  type HookService,
  type HookServiceOptions,
  hookServiceApp,
  startIngressHook,
} from "./service.js";
export { type LoadedWaitingPages, loadWaitingPages } from "./waiting-pages.js";
