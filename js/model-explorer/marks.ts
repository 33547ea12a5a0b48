// What the widget's highlight looks like in Model Explorer: the marks the frame's shim turns into rules
// of the app's node styler (frame/shim-marks.ts).
import {
  HIGHLIGHT_COLOUR,
  HIGHLIGHT_FILL,
  HIGHLIGHT_ROLE_COLOURS,
  HIGHLIGHT_ROLE_FILLS,
  HIGHLIGHT_ROLES,
  type HighlightRole,
} from "../kernel/protocol";
import type { NodeMark } from "./protocol";

/** Model Explorer's marks for highlighted node ids: a border in the highlight's colour, or a role's fill and border. */
export function nodeMarks(nodeIds: string[], roles: Record<string, HighlightRole>): NodeMark[] {
  const plain: string[] = [];
  const byRole = new Map<HighlightRole, string[]>();
  for (const nodeId of nodeIds) {
    const role = roles[nodeId];
    if (role) byRole.set(role, [...(byRole.get(role) ?? []), nodeId]);
    else plain.push(nodeId);
  }
  // In the roles' own order (a producer before the ops it spread to): the first rule that matches a
  // layer paints it, so a layer holding a producer is bordered as a producer.
  const marks: NodeMark[] = HIGHLIGHT_ROLES.flatMap((role) => {
    const ids = byRole.get(role);
    return ids ? [{ nodeIds: ids, border: HIGHLIGHT_ROLE_COLOURS[role], fill: HIGHLIGHT_ROLE_FILLS[role] }] : [];
  });
  if (plain.length) marks.push({ nodeIds: plain, border: HIGHLIGHT_COLOUR, fill: HIGHLIGHT_FILL });
  return marks;
}
