// Inside the Netron frame: the overlay painter. It colours the op and module-call boxes on screen by
// a value per Netron node name (the pure parts, checks, scale and legend model, are in overlay.ts),
// hatches boxes without a value, and keeps a legend in the corner.
import { checkOverlay, legendModel, MISSING, nodeColour, type CheckedOverlay, type DrawnCounts } from "./overlay";
import { boxParts, drawnBoxes, graphCanvas, type ViewGraph } from "./netron-view";

const SVG_NS = "http://www.w3.org/2000/svg";
const HATCH_ID = "tlw-overlay-hatch";
const LEGEND_ID = "tlw-overlay-legend";
/** Marks a box the overlay painted (so clearing finds them); "value" or "missing". */
const PAINTED = "data-tlw-overlay";

const OVERLAY_CSS = `
g.node[${PAINTED}="value"] .node-item:hover > path { opacity: 0.82; }
g.node[${PAINTED}="missing"] .node-item:hover > path { opacity: 0.7; }
#${LEGEND_ID} { position: fixed; top: 8px; left: 40px; z-index: 5; max-width: 260px; padding: 6px 8px 7px;
  background: rgba(255, 255, 255, 0.94); color: #222; border: 1px solid #bbb; border-radius: 4px;
  font: 11px -apple-system, BlinkMacSystemFont, "Segoe UI", Ubuntu, "Droid Sans", sans-serif;
  box-shadow: 0 1px 3px rgba(0, 0, 0, 0.15); pointer-events: none; user-select: none; }
/* Netron's body class names the page (view.show): the legend belongs to the graph page only. */
body:not(.default) #${LEGEND_ID} { display: none; }
#${LEGEND_ID} .tlw-ov-title { font-weight: 600; margin-bottom: 4px; overflow-wrap: anywhere; }
#${LEGEND_ID} .tlw-ov-bar { height: 10px; border: 1px solid #999; border-radius: 2px; }
#${LEGEND_ID} .tlw-ov-ends { display: flex; justify-content: space-between; gap: 8px; margin-top: 1px; }
#${LEGEND_ID} .tlw-ov-missing { display: flex; align-items: center; gap: 5px; margin-top: 4px; }
#${LEGEND_ID} .tlw-ov-swatch { width: 18px; height: 10px; border: 1px solid #999; border-radius: 2px;
  background: repeating-linear-gradient(45deg, ${MISSING.fill} 0 3px, ${MISSING.hatch} 3px 4.5px); }
#${LEGEND_ID} .tlw-ov-note { margin-top: 4px; color: #555; overflow-wrap: anywhere; }
`;

/** The diagonal hatching for boxes without a value, defined inside Netron's current <svg id="canvas">
 * (view.Graph.build makes a new canvas per graph; inside it, PNG/SVG export keeps the pattern). */
function ensureHatch(): void {
  const canvas = graphCanvas();
  if (!canvas || canvas.querySelector(`#${HATCH_ID}`)) return;
  const defs = document.createElementNS(SVG_NS, "defs");
  const pattern = document.createElementNS(SVG_NS, "pattern");
  pattern.setAttribute("id", HATCH_ID);
  pattern.setAttribute("patternUnits", "userSpaceOnUse");
  pattern.setAttribute("width", "6");
  pattern.setAttribute("height", "6");
  pattern.setAttribute("patternTransform", "rotate(45)");
  const back = document.createElementNS(SVG_NS, "rect");
  back.setAttribute("width", "6");
  back.setAttribute("height", "6");
  back.setAttribute("fill", MISSING.fill);
  const line = document.createElementNS(SVG_NS, "rect");
  line.setAttribute("width", "2");
  line.setAttribute("height", "6");
  line.setAttribute("fill", MISSING.hatch);
  pattern.append(back, line);
  defs.appendChild(pattern);
  canvas.insertBefore(defs, canvas.firstChild);
}

function paint(box: Element, kind: "value" | "missing", fill: string, text: string): void {
  box.setAttribute(PAINTED, kind);
  const { shapes, texts } = boxParts(box);
  // Inline styles: they beat grapher.css's category colours and survive Netron's PNG/SVG export.
  for (const shape of shapes) shape.style.setProperty("fill", fill);
  for (const label of texts) label.style.setProperty("fill", text);
}

function unpaint(box: Element): void {
  box.removeAttribute(PAINTED);
  const { shapes, texts } = boxParts(box);
  for (const element of [...shapes, ...texts]) element.style.removeProperty("fill");
}

/** Colours Netron's boxes by an overlay (a value per node name) and keeps a legend beside the graph. */
export class OverlayPainter {
  private overlay: CheckedOverlay | null = null;
  private legend: HTMLElement | null = null;

  constructor() {
    const style = document.createElement("style");
    style.textContent = OVERLAY_CSS;
    document.head.appendChild(style);
  }

  /** A new overlay (checked here: the frame trusts nothing it is sent); null clears. */
  set(raw: unknown, graph: ViewGraph | null): void {
    this.overlay = checkOverlay(raw);
    this.apply(graph);
  }

  /** Colours (or uncolours) every box of `graph`, the graph on screen; updates the legend. */
  apply(graph: ViewGraph | null): void {
    for (const box of document.querySelectorAll(`[${PAINTED}]`)) unpaint(box);
    const overlay = this.overlay;
    if (!overlay) {
      this.legend?.remove();
      this.legend = null;
      return;
    }
    const counts: DrawnCounts = { coloured: 0, missing: 0 };
    if (graph) {
      ensureHatch();
      for (const { name, element } of drawnBoxes(graph)) {
        const value = overlay.values.get(name);
        if (value !== undefined) {
          const colour = nodeColour(value, overlay);
          paint(element, "value", colour.fill, colour.text);
          counts.coloured++;
        } else {
          // No value: hatched, never the zero colour.
          paint(element, "missing", `url(#${HATCH_ID})`, MISSING.text);
          counts.missing++;
        }
      }
    }
    this.showLegend(overlay, counts);
  }

  private showLegend(overlay: CheckedOverlay, counts: DrawnCounts): void {
    const model = legendModel(overlay, counts);
    if (!this.legend) {
      this.legend = document.createElement("div");
      this.legend.id = LEGEND_ID;
      this.legend.setAttribute("role", "note");
      document.body.appendChild(this.legend);
    }
    const div = (className: string, text = ""): HTMLDivElement => {
      const element = document.createElement("div");
      element.className = className;
      element.textContent = text;
      return element;
    };
    const bar = div("tlw-ov-bar");
    bar.style.background = model.gradient;
    const ends = div("tlw-ov-ends");
    ends.append(div("tlw-ov-min", model.minText), div("tlw-ov-max", model.maxText));
    const missing = div("tlw-ov-missing");
    missing.append(div("tlw-ov-swatch"), div("tlw-ov-missing-text", model.missingText));
    const parts: HTMLElement[] = [div("tlw-ov-title", model.title), bar, ends, missing];
    if (model.coverage) parts.push(div("tlw-ov-note tlw-ov-coverage", model.coverage));
    if (model.drawn) parts.push(div("tlw-ov-note tlw-ov-drawn", model.drawn));
    this.legend.replaceChildren(...parts);
  }
}
