import type { Allow } from "./decision.js";
import type { RevisionSlot } from "./revision-slot.js";
import type { UpstreamPicker } from "./upstream-picker.js";

/**
 * The warm allow to the pod the revision's policy picks (a warm slot has at least one pod). The answers
 * are prepared once per endpoints array, so a request allocates nothing; with one pod every policy names
 * it, so its allow is returned without consulting the chooser.
 */
export function warmAllow(slot: RevisionSlot, picker: UpstreamPicker): Allow {
  // Each write clears it, so a set one is current: the common warm answer reads one field more.
  if (slot.onlyAllow) return slot.onlyAllow;
  if (slot.preparedFor !== slot.endpoints) prepare(slot, picker);
  if (slot.onlyAllow) return slot.onlyAllow;
  const picked = slot.chooser ? slot.allows[slot.chooser.choose()] : undefined;
  return picked ?? { ...(slot.allows[0] as Allow), upstream: undefined };
}

/** The pod for an allow that is not warm (a request held while its revision was cold), by the same policy. */
export function pickUpstream(slot: RevisionSlot, picker: UpstreamPicker): string | undefined {
  if (slot.preparedFor !== slot.endpoints) prepare(slot, picker);
  if (slot.onlyAllow) return slot.onlyAllow.upstream;
  return slot.podCount > 1 && slot.chooser ? slot.endpoints[slot.chooser.choose()] : undefined;
}

/** Builds the slot's answers for its current endpoints: the warm allows and, for several pods, the chooser. */
function prepare(slot: RevisionSlot, picker: UpstreamPicker): void {
  const { endpoints, ref: revision, key } = slot;
  slot.allows = endpoints.map((upstream) => ({
    kind: "allow",
    revision,
    key,
    upstream,
    via: "pod",
    warm: true,
  }));
  slot.onlyAllow = endpoints.length === 1 ? slot.allows[0] : undefined;
  if (endpoints.length > 1) slot.chooser = picker.chooser(key, endpoints, slot.chooser);
  slot.preparedFor = endpoints;
}
