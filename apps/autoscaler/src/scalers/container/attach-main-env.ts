/** Environment the attach process (attach-main.ts) reads, set by the container scaler. */
export const ATTACH_ENV = { socket: "THAW_CONTAINER_SOCKET", name: "THAW_CONTAINER_NAME" } as const;
