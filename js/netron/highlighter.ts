// Inside the Netron frame: the highlight painter. It marks the op and module-call boxes the kernel
// names (w.highlight, w.lineage, a debug answer) with a class: a dashed magenta border, distinct from
// Netron's red selection border and from the overlay's fills. Netron draws a new SVG on every
// redraw (open, drilling in or out), so the names are kept and marked again on each graph.
import { HIGHLIGHT_COLOUR } from "../protocol";
import { drawnBoxes, type ViewGraph } from "./netron-view";

/** The class a highlighted box's <g> gets (the e2e tests read it). */
export const HIGHLIGHT_CLASS = "tlw-highlight";

// Netron's selection rule is `.select > .node.node-border` (grapher.css): ours is more specific, and
// a highlighted box that is also selected shows the selection's red, so the selection stays visible.
export const HIGHLIGHT_CSS = `
g.node.${HIGHLIGHT_CLASS} > path.node-border { stroke: ${HIGHLIGHT_COLOUR}; stroke-width: 3px; stroke-dasharray: 6 3; }
g.node.${HIGHLIGHT_CLASS}.select > path.node-border { stroke: rgba(220, 0, 0, 0.9); stroke-dasharray: none; }
`;

/** The names the frame was sent, checked: the frame trusts nothing it is sent. */
export function checkHighlight(raw: unknown): Set<string> {
  return new Set(Array.isArray(raw) ? raw.filter((name): name is string => typeof name === "string" && name !== "") : []);
}

export class HighlightPainter {
  private names = new Set<string>();

  constructor(private readonly doc: Document = document) {
    const style = doc.createElement("style");
    style.textContent = HIGHLIGHT_CSS;
    doc.head.appendChild(style);
  }

  /** New names to mark (Netron node names; anything else is ignored); an empty list clears. */
  set(raw: unknown, graph: ViewGraph | null): void {
    this.names = checkHighlight(raw);
    this.apply(graph);
  }

  /** Marks the named boxes of `graph`, the graph on screen; returns how many it marked. */
  apply(graph: ViewGraph | null): number {
    for (const box of [...this.doc.getElementsByClassName(HIGHLIGHT_CLASS)]) box.classList.remove(HIGHLIGHT_CLASS);
    if (!graph || this.names.size === 0) return 0;
    let marked = 0;
    for (const { name, element } of drawnBoxes(graph)) {
      if (!this.names.has(name)) continue;
      element.classList.add(HIGHLIGHT_CLASS);
      marked++;
    }
    return marked;
  }
}
