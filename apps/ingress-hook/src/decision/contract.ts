/**
 * The activator API shapes of CONTRACTS.md as the hook uses them. They mirror @thaw/protocol's
 * activation-api.ts and ErrorCode; this file goes once that module is merged into main.
 */

/** POST /v1/activate body. */
export interface ActivateRequest {
  namespace: string;
  name: string;
  timeoutMs: number;
}

/** 200 answer of POST /v1/activate. */
export interface ActivateResponse {
  namespace: string;
  name: string;
  endpoints: string[];
  coldStart: boolean;
  waitedMs: number;
}

/** Error body of every non-2xx answer of the activator and of the hook. */
export interface ApiError {
  error: { code: string; message: string };
}

/** One `endpoints` event of GET /v1/watch. */
export interface EndpointsEvent {
  namespace: string;
  name: string;
  endpoints: string[];
  mode: "proxy" | "serve";
}

/** The error codes of the contract that the hook produces or reads. */
export const ErrorCode = {
  unknownRevision: "ERR_UNKNOWN_REVISION",
  activationTimeout: "ERR_ACTIVATION_TIMEOUT",
  upstream: "ERR_UPSTREAM",
  unauthorized: "ERR_UNAUTHORIZED",
  noBackends: "ERR_NO_BACKENDS",
  badRequest: "ERR_BAD_REQUEST",
  deadline: "ERR_DEADLINE",
} as const;
