// Inside the Netron frame: the highlight painter. It marks the op and module-call boxes the kernel
// names (w.highlight, w.lineage, a debug answer) with a class: a dashed magenta border, distinct from
// Netron's red selection border and from the overlay's fills. An answer that tells its nodes apart
// (explain_nonfinite) adds a role class: the producer's border solid and thick, the carriers' purple.
// Netron draws a new SVG on every redraw (open, drilling in or out), so the names are kept and
// marked again on each graph.
import {
  HIGHLIGHT_COLOUR,
  HIGHLIGHT_ROLE_COLOURS,
  HIGHLIGHT_ROLES,
  type HighlightRole,
  highlightRoles,
  NOT_IN_EVERY_RUN_BORDER,
} from "../../kernel/protocol";
import { drawnBoxes, type ViewGraph } from "./netron-view";

/** The class a highlighted box's <g> gets (the e2e tests read it). */
export const HIGHLIGHT_CLASS = "tlw-highlight";
/** The class a box marked in a role gets besides HIGHLIGHT_CLASS: "tlw-producer", "tlw-propagated". */
export const roleClass = (role: HighlightRole): string => `tlw-${role}`;

// Netron's selection rule is `.select > .node.node-border` (grapher.css): ours is more specific, and
// a highlighted box that is also selected shows the selection's red, so the selection stays visible.
export const HIGHLIGHT_CSS = `
g.node.${HIGHLIGHT_CLASS} > path.node-border { stroke: ${HIGHLIGHT_COLOUR}; stroke-width: 3px; stroke-dasharray: 6 3; }
g.node.${HIGHLIGHT_CLASS}.${roleClass("producer")} > path.node-border { stroke: ${HIGHLIGHT_ROLE_COLOURS.producer}; stroke-width: 5px; stroke-dasharray: none; }
g.node.${HIGHLIGHT_CLASS}.${roleClass("propagated")} > path.node-border { stroke: ${HIGHLIGHT_ROLE_COLOURS.propagated}; stroke-width: 3px; stroke-dasharray: none; }
g.node.${HIGHLIGHT_CLASS}.${roleClass("ranked")} > path.node-border { stroke: ${HIGHLIGHT_ROLE_COLOURS.ranked}; stroke-width: 5px; stroke-dasharray: none; }
g.node.${HIGHLIGHT_CLASS}.select > path.node-border { stroke: rgba(220, 0, 0, 0.9); stroke-dasharray: none; }
`;

/** The names the frame was sent, checked: the frame trusts nothing it is sent. */
export function checkHighlight(raw: unknown): Set<string> {
  return new Set(Array.isArray(raw) ? raw.filter((name): name is string => typeof name === "string" && name !== "") : []);
}

/** Adds a rule sheet to the frame's document. */
function addStyle(doc: Document, css: string): void {
  const style = doc.createElement("style");
  style.textContent = css;
  doc.head.appendChild(style);
}

/**
 * Takes the `every` classes off every box (the first is on each box marked), then puts `classesOf(name)`
 * on each box of `graph` whose name is in `names`; returns how many boxes it marked.
 */
function markBoxes(
  doc: Document,
  graph: ViewGraph | null,
  names: Set<string>,
  every: string[],
  classesOf: (name: string) => string[],
): number {
  for (const box of [...doc.getElementsByClassName(every[0])]) box.classList.remove(...every);
  if (!graph || names.size === 0) return 0;
  let marked = 0;
  for (const { name, element } of drawnBoxes(graph)) {
    if (!names.has(name)) continue;
    element.classList.add(...classesOf(name));
    marked++;
  }
  return marked;
}

export class HighlightPainter {
  private names = new Set<string>();
  private roles: Record<string, HighlightRole> = {};

  constructor(private readonly doc: Document = document) {
    addStyle(doc, HIGHLIGHT_CSS);
  }

  /** New names to mark (Netron node names; anything else is ignored), some in a role; [] clears. */
  set(raw: unknown, rawRoles: unknown, graph: ViewGraph | null): void {
    this.names = checkHighlight(raw);
    this.roles = highlightRoles(rawRoles);
    this.apply(graph);
  }

  /** Marks the named boxes of `graph`, the graph on screen; returns how many it marked. */
  apply(graph: ViewGraph | null): number {
    const every = [HIGHLIGHT_CLASS, ...HIGHLIGHT_ROLES.map(roleClass)];
    return markBoxes(this.doc, graph, this.names, every, (name) => {
      const role = this.roles[name];
      return role ? [HIGHLIGHT_CLASS, roleClass(role)] : [HIGHLIGHT_CLASS];
    });
  }
}

/** The class of a box whose op some of a comparison's runs lack (the e2e tests read it). */
export const RUN_MARK_CLASS = "tlw-not-in-runs";

// Before the highlight's rules in the document, and as specific: a box both marked and highlighted
// shows the highlight; a selected one Netron's red selection.
const RUN_MARK_CSS = `
g.node.${RUN_MARK_CLASS} > path.node-border { stroke: ${NOT_IN_EVERY_RUN_BORDER}; stroke-width: 3px; }
g.node.${RUN_MARK_CLASS}.select > path.node-border { stroke: rgba(220, 0, 0, 0.9); }
`;

/**
 * Borders the boxes of ops some of a comparison's runs lack (the kernel names them with the graph), as
 * Model Explorer does with the node's own style. Kept and applied on every graph Netron draws.
 */
export class RunMarkPainter {
  private names = new Set<string>();

  /** Made before the HighlightPainter, so that its rules come later and win. */
  constructor(private readonly doc: Document = document) {
    addStyle(doc, RUN_MARK_CSS);
  }

  set(raw: unknown, graph: ViewGraph | null): void {
    this.names = checkHighlight(raw);
    this.apply(graph);
  }

  /** Marks the named boxes of `graph`, the graph on screen; returns how many it marked. */
  apply(graph: ViewGraph | null): number {
    return markBoxes(this.doc, graph, this.names, [RUN_MARK_CLASS], () => [RUN_MARK_CLASS]);
  }
}
