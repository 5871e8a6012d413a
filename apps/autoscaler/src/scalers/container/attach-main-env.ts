/**
 * Environment the attach process (attach-main.ts) reads, set by the container scaler: the engine socket, the
 * first container's name and app port, and which replica this pod is (1 = the first container itself).
 * The replica's host port comes as PORT, like any pod's app port.
 */
export const ATTACH_ENV = {
  socket: "THAW_CONTAINER_SOCKET",
  name: "THAW_CONTAINER_NAME",
  port: "THAW_CONTAINER_PORT",
  replica: "THAW_CONTAINER_REPLICA",
} as const;
