const REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "Conflict",
  410: "Expired",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
};

/** The `v1 Status` object the API server answers failures with (and sends in watch ERROR events). */
export interface StatusObject {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure";
  message: string;
  reason: string;
  code: number;
  details?: { name?: string; group?: string; kind?: string; retryAfterSeconds?: number };
}

/** Builds a failure Status; `reason` defaults to the documented one for the code. */
export function statusOf(
  code: number,
  message: string,
  o: { reason?: string; details?: StatusObject["details"] } = {},
): StatusObject {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: o.reason ?? REASONS[code] ?? "Unknown",
    code,
    ...(o.details ? { details: o.details } : {}),
  };
}
