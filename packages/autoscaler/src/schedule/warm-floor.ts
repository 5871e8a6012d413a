import type { ScaleSettings } from "../scale-settings.js";

/**
 * The scale settings with min-scale raised to `floor` (a schedule window's min-scale, or 1 for a wake
 * hint): effective min-scale = max(configured, floor), still capped by max-scale. Everything else,
 * scale-to-zero grace included, is unchanged, so when the floor drops the revision scales down as usual.
 */
export function withWarmFloor(settings: ScaleSettings, floor: number): ScaleSettings {
  if (floor <= settings.minScale) return settings;
  const capped = settings.maxScale > 0 ? Math.min(floor, settings.maxScale) : floor;
  return { ...settings, minScale: Math.max(settings.minScale, capped) };
}
