/** The folder of the pinned Compose module (go.mod, go.sum). */
export const COMPOSE_MODULE_DIR: string;
/** The command that builds Compose into the cache. */
export const COMPOSE_BUILD_COMMAND: string;
/** Where the binary for the current go.mod, go.sum and flags is (or will be). */
export function composePath(): string;
/** The cached binary, or an error naming the build command. */
export function composeBinary(): string;
/** Builds into the cache unless it is there; resolves with the binary's path. */
export function buildCompose(log?: (line: string) => void): Promise<string>;
