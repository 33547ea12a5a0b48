// The memory strip under the graph (`w.timeline = "memory"`): torchlens' live bytes over execution
// order on a canvas, its live categories stacked (input under activation), above its persistent
// baseline (stated in the caption, not drawn: on GPT-2 the parameters are 99% of the total and would
// flatten the rest), the peak marked, the selected op marked; hovering names the op and its bytes, a
// click picks the op that ran there. The binning and hit-testing maths is js/memory/strip-columns.ts.
//
// The strip never takes the keyboard focus (nothing in it is focusable) and never scrolls the page:
// only a click on it does anything. Everything from the kernel reaches the DOM through textContent.
import type { MemoryTimelineReply } from "../kernel/protocol";
import { barHeight, binColumns, formatBytes, pointAt, pointX } from "./strip-columns";

/** The strip's height in the cell (caption and canvas); a maximized widget gives it MAXIMIZED_STRIP_HEIGHT. */
export const STRIP_HEIGHT = 110;
export const MAXIMIZED_STRIP_HEIGHT = 180;

/** A colour per torchlens category the strip stacks ("live": the total alone, when it is not split). */
export const CATEGORY_COLOURS: Record<string, string> = { input: "#9fb3c8", activation: "#4878a8", live: "#4878a8" };
const OTHER_COLOUR = "#7a8a99";
/** The peak's mark, and the selection's: apart from the bands and from each other. */
export const PEAK_COLOUR = "#c62828";
export const SELECTION_COLOUR = "#ff8f00";
/** Over the part of a column between its least and most bytes (several ops in one pixel column). */
const RANGE_VEIL = "rgba(255, 255, 255, 0.45)";

export interface StripEvents {
  /** The user clicked the op drawn as `nodeId` in the viewer on screen. */
  onPick(nodeId: string): void;
}

/** The reply, made ready to draw: the bytes above the baseline per point, and each label's point. */
interface Series {
  reply: MemoryTimelineReply;
  above: Float64Array;
  pointOf: Map<string, number>;
  /** torchlens' peak op's point (null where its peak ordinal is no point of the series: no mark). */
  peak: number | null;
}

function seriesOf(reply: MemoryTimelineReply): Series {
  const above = Float64Array.from(reply.live, (live) => Math.max(0, live - reply.baseline_bytes));
  const pointOf = new Map<string, number>();
  reply.labels.forEach((label, index) => {
    if (label) pointOf.set(label, index);
  });
  const peak = reply.ordinals.indexOf(reply.peak_ordinal);
  return { reply, above, pointOf, peak: peak >= 0 ? peak : null };
}

export class MemoryStrip {
  readonly root: HTMLDivElement;
  readonly canvas: HTMLCanvasElement;
  private readonly summary: HTMLSpanElement;
  private readonly legend: HTMLSpanElement;
  private readonly readout: HTMLSpanElement;
  private series: Series | null = null;
  private selected = "";
  private readonly resize: ResizeObserver;

  constructor(
    private readonly doc: Document,
    private readonly events: StripEvents,
  ) {
    this.root = doc.createElement("div");
    this.root.className = "tlw-strip";
    this.root.dataset.visible = "false";
    const caption = doc.createElement("div");
    caption.className = "tlw-strip-caption";
    this.summary = doc.createElement("span");
    this.summary.className = "tlw-strip-summary";
    this.legend = doc.createElement("span");
    this.legend.className = "tlw-strip-legend";
    this.readout = doc.createElement("span");
    this.readout.className = "tlw-strip-readout";
    caption.append(this.summary, this.legend, this.readout);
    this.canvas = doc.createElement("canvas");
    this.canvas.className = "tlw-strip-canvas";
    this.canvas.setAttribute("role", "img");
    // The canvas fills a box of the strip's size: its own pixel size (device pixels) never sizes the strip.
    const plot = doc.createElement("div");
    plot.className = "tlw-strip-plot";
    plot.append(this.canvas);
    this.root.append(caption, plot);
    this.canvas.addEventListener("click", (event) => this.pick(event.offsetX));
    this.canvas.addEventListener("mousemove", (event) => this.hover(event.offsetX));
    this.canvas.addEventListener("mouseleave", () => this.hover(null));
    // Drawn again at the canvas's new size (maximize, a wider cell, the strip shown).
    this.resize = new ResizeObserver(() => this.draw());
    this.resize.observe(this.canvas);
  }

  /** Shows `reply`'s series, with the op `selected` (a torchlens label, "" for none) marked. */
  show(reply: MemoryTimelineReply, selected: string): void {
    this.series = seriesOf(reply);
    this.selected = selected;
    this.root.dataset.visible = "true";
    this.root.dataset.points = String(reply.ordinals.length);
    const peakLabel = this.series.peak === null ? "" : reply.labels[this.series.peak];
    this.summary.textContent =
      `Memory over execution order: peak ${reply.peak_text}${peakLabel ? ` at ${peakLabel}` : ""}; ` +
      `drawn above the ${reply.baseline_text} baseline of parameters and buffers`;
    this.summary.title = `torchlens' estimated liveness: ${reply.caption}`;
    this.legend.replaceChildren(
      ...reply.categories.map((category) => {
        const item = this.doc.createElement("span");
        const swatch = this.doc.createElement("i");
        swatch.style.background = CATEGORY_COLOURS[category] ?? OTHER_COLOUR;
        item.append(swatch, category);
        return item;
      }),
    );
    this.canvas.setAttribute("aria-label", this.summary.textContent);
    this.hover(null);
    this.draw();
  }

  /** Hides the strip and forgets its series. */
  clear(): void {
    this.series = null;
    this.root.dataset.visible = "false";
    delete this.root.dataset.points;
    delete this.root.dataset.drawnAt;
    const context = this.canvas.getContext("2d");
    context?.clearRect(0, 0, this.canvas.width, this.canvas.height);
  }

  /** Moves the selection's mark to the op `label` ("" or an op off the series: no mark). */
  mark(label: string): void {
    if (label === this.selected) return;
    this.selected = label;
    this.draw();
  }

  dispose(): void {
    this.resize.disconnect();
  }

  /** Draws the series at the canvas's size in device pixels, one column per device pixel. */
  draw(): void {
    const series = this.series;
    const context = this.canvas.getContext("2d");
    const width = this.canvas.clientWidth;
    const height = this.canvas.clientHeight;
    if (!series || !context || width <= 0 || height <= 0) return; // not laid out: the resize draws it
    const scale = this.doc.defaultView?.devicePixelRatio || 1;
    const columns = Math.max(1, Math.round(width * scale));
    const rows = Math.max(1, Math.round(height * scale));
    if (this.canvas.width !== columns) this.canvas.width = columns;
    if (this.canvas.height !== rows) this.canvas.height = rows;
    context.clearRect(0, 0, columns, rows);
    const { reply, above } = series;
    const points = above.length;
    const bins = binColumns(above, columns);
    let top = 0;
    for (const value of above) if (value > top) top = value;
    const plot = rows - Math.round(2 * scale); // the highest bar stops short of the top edge
    // The bands of each column's highest point, stacked in torchlens' order (input under activation).
    const base = new Float64Array(columns);
    reply.bands.forEach((band, b) => {
      context.fillStyle = CATEGORY_COLOURS[reply.categories[b]] ?? OTHER_COLOUR;
      for (let column = 0; column < columns; column++) {
        const bytes = band[bins[column].top];
        const from = barHeight(base[column], top, plot);
        base[column] += bytes;
        const to = barHeight(base[column], top, plot);
        if (to > from) context.fillRect(column, rows - to, 1, to - from);
      }
    });
    // Where a column holds several ops, the part between its least and its most bytes is veiled.
    context.fillStyle = RANGE_VEIL;
    for (let column = 0; column < columns; column++) {
      const { min, max } = bins[column];
      if (max > min) {
        const low = barHeight(min, top, plot);
        context.fillRect(column, rows - barHeight(max, top, plot), 1, barHeight(max, top, plot) - low);
      }
    }
    if (series.peak !== null) {
      const width = Math.max(1, Math.round(scale));
      this.line(context, pointX(series.peak, columns, points), rows, PEAK_COLOUR, width, [3 * scale, 2 * scale]);
    }
    const selected = this.selected ? series.pointOf.get(this.selected) : undefined;
    if (selected !== undefined) this.line(context, pointX(selected, columns, points), rows, SELECTION_COLOUR, Math.round(2 * scale), []);
    this.root.dataset.selectedPoint = selected === undefined ? "" : String(selected);
    this.root.dataset.drawnAt = String(Date.now());
  }

  private line(context: CanvasRenderingContext2D, x: number, rows: number, colour: string, width: number, dash: number[]): void {
    context.save();
    context.strokeStyle = colour;
    context.lineWidth = width;
    context.setLineDash(dash);
    context.beginPath();
    const at = Math.round(x - width / 2) + width / 2; // on whole device pixels: crisp, and where the test reads it
    context.moveTo(at, 0);
    context.lineTo(at, rows);
    context.stroke();
    context.restore();
  }

  private pointUnder(x: number | null): number | null {
    if (!this.series || x === null) return null;
    return pointAt(x, this.canvas.clientWidth, this.series.above.length);
  }

  private hover(x: number | null): void {
    const index = this.pointUnder(x);
    const series = this.series;
    if (index === null || !series) {
      this.readout.textContent = series ? "hover: the op and its bytes; click: select it" : "";
      this.canvas.title = "";
      return;
    }
    const { reply, above } = series;
    const label = reply.labels[index] || `ordinal ${reply.ordinals[index]}`;
    const text = `${label}: ${formatBytes(reply.live[index])} alive, ${formatBytes(above[index])} above the baseline`;
    this.readout.textContent = text;
    this.canvas.title = text;
  }

  private pick(x: number): void {
    const index = this.pointUnder(x);
    if (index === null || !this.series) return;
    const { reply } = this.series;
    const nodeId = reply.node_ids[index];
    if (nodeId) this.events.onPick(nodeId);
    else this.readout.textContent = `${reply.labels[index] || "this op"} is not drawn in this view`;
  }
}

// Appended to the widget's styles (js/view/styles.ts).
export const STRIP_STYLES = `
.tlw-strip { display: none; flex: 0 0 ${STRIP_HEIGHT}px; flex-direction: column; min-height: 0; box-sizing: border-box;
  border-top: 1px solid var(--jp-border-color2, #d0d0d0); background: var(--jp-layout-color1, #fff); }
.tlw-strip[data-visible="true"] { display: flex; }
.tlw-root[data-maximized="true"] .tlw-strip { flex-basis: ${MAXIMIZED_STRIP_HEIGHT}px; }
.tlw-strip-caption { display: flex; gap: 10px; align-items: center; padding: 2px 8px; font-size: 11px; white-space: nowrap;
  overflow: hidden; color: var(--jp-ui-font-color2, #555); }
.tlw-strip-summary { overflow: hidden; text-overflow: ellipsis; min-width: 0; }
.tlw-strip-legend { display: flex; gap: 8px; }
.tlw-strip-legend i { display: inline-block; width: 9px; height: 9px; margin-right: 3px; vertical-align: -1px; }
.tlw-strip-readout { margin-left: auto; overflow: hidden; text-overflow: ellipsis; min-width: 0;
  font-family: var(--jp-code-font-family, monospace); color: var(--jp-ui-font-color1, #222); }
.tlw-strip-plot { position: relative; flex: 1 1 auto; min-height: 0; }
.tlw-strip-canvas { position: absolute; inset: 0; display: block; width: 100%; height: 100%; cursor: crosshair; }
`;
