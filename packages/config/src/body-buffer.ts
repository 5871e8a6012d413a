import type { ThawConfig } from "./schema.js";

/**
 * The bounds of all request bodies kept for a replay that thaw.config.yaml sets (`bodyBufferRevisionBytes`,
 * `bodyBufferProcessBytes`), in @thaw/activation's BodyBudget shape; a key left out keeps its default there.
 */
export function bodyBudgetLimits(
  config: Pick<ThawConfig, "bodyBufferRevisionBytes" | "bodyBufferProcessBytes"> | undefined,
): { revisionBytes?: number; processBytes?: number } {
  const out: { revisionBytes?: number; processBytes?: number } = {};
  if (config?.bodyBufferRevisionBytes !== undefined) out.revisionBytes = config.bodyBufferRevisionBytes;
  if (config?.bodyBufferProcessBytes !== undefined) out.processBytes = config.bodyBufferProcessBytes;
  return out;
}
