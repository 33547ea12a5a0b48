// How highlighted nodes look in both viewers, and the `_highlight_roles` trait's roles: part of the
// kernel-browser protocol (js/kernel/protocol.ts re-exports it), in a module of its own so that the inspector's
// replies (js/kernel/protocol-inspect.ts) name a role without importing the protocol that re-exports them.

import { isObject } from "./json-checks";

/** The border colour of highlighted nodes in both viewers. */
export const HIGHLIGHT_COLOUR = "#D81B60";

/**
 * A comparison's ops that some runs lack: a thick dark border in both viewers (Model Explorer's is the
 * node's own style, set by the kernel; Netron's frame draws it), apart from the highlight's magenta.
 */
export const NOT_IN_EVERY_RUN_BORDER = "#37474F";

/**
 * How an answer tells its highlighted nodes apart (explain_nonfinite): the producer of a NaN and the
 * ops that only carry it. Both viewers' frames draw these colours on the graph drawn.
 */
export const HIGHLIGHT_ROLES = ["producer", "propagated", "ranked"] as const;
export type HighlightRole = (typeof HIGHLIGHT_ROLES)[number];
/** drift_ranking's ops (those that create the most error) are "ranked": the highlight's colour, thicker. */
export const HIGHLIGHT_ROLE_COLOURS: Record<HighlightRole, string> = {
  producer: HIGHLIGHT_COLOUR,
  propagated: "#7B1FA2",
  ranked: HIGHLIGHT_COLOUR,
};
/**
 * Model Explorer also fills a marked node (its node styler draws borders thin; Netron thickens its
 * border instead): a plain highlight pale pink, each role in its own colour.
 */
export const HIGHLIGHT_FILL = "#FCE4EC";
/** Model Explorer's fill of a node in a role. */
export const HIGHLIGHT_ROLE_FILLS: Record<HighlightRole, string> = {
  producer: "#F8BBD0",
  propagated: "#E1BEE7",
  ranked: "#FFF59D",
};

/** The `_highlight_roles` trait (node id -> role), keeping only known roles. */
export function highlightRoles(value: unknown): Record<string, HighlightRole> {
  const roles: Record<string, HighlightRole> = {};
  if (!isObject(value)) return roles;
  for (const [nodeId, role] of Object.entries(value))
    if ((HIGHLIGHT_ROLES as readonly unknown[]).includes(role)) roles[nodeId] = role as HighlightRole;
  return roles;
}
