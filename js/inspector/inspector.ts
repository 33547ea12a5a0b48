// The inspector panel: what the kernel says about the selected node (torchlens_widgets/inspector/),
// drawn as a facts table, value statistics, a histogram (SVG) and a heatmap of one slice (canvas),
// with a button that copies the Python expression for the record.
//
// Everything from the kernel is data: it only ever reaches the DOM through textContent and attributes,
// never innerHTML. The numbers and pixels it draws come from js/inspector/inspector-values.ts.
import { viewBytes } from "../kernel/bytes";
import { MEMORY_STYLES, memoryBox } from "./inspector-memory";
import { nonFiniteBox, NONFINITE_STYLES } from "./inspector-nonfinite";
import { markShownRun, runsBox, RUNS_STYLES } from "../comparing/inspector-runs";
import { DASH, formatNumber } from "../shared/number-format";
import {
  describeCoverage,
  decodeUint32LE,
  histogramBars,
  binRange,
  heatmapRGBA,
  heatmapCssSize,
  copyExpression,
  statsRows,
  bufferAt,
} from "./inspector-values";
import type { BaselineSection, FactRow, HeatmapMeta, HistogramMeta, PanelInspectReply, ValueSection } from "../kernel/protocol";

const SVG_NS = "http://www.w3.org/2000/svg";
const HIST_WIDTH = 256;
const HIST_HEIGHT = 64;
const HEATMAP_MAX_CSS_WIDTH = 336; // the panel's width less its padding

/** The lineage directions the inspector offers for the selected node (torchlens.debug.lineage). */
export type LineageDirection = "upstream" | "downstream";

/** The record kinds torchlens has a lineage for (a difference or a saved page's marker has none). */
const LINEAGE_KINDS = new Set(["op", "layer", "module", "module_call"]);

export class InspectorPanel {
  readonly root: HTMLDivElement;
  private readonly doc: Document;
  private resetTimer: ReturnType<typeof setTimeout> | undefined;
  private onLineage: ((direction: LineageDirection) => void) | null = null;
  private onSelect: ((nodeId: string) => void) | null = null;
  private onRun: ((run: string) => void) | null = null;
  private runRows: HTMLElement[] = [];

  constructor(doc: Document = document) {
    this.doc = doc;
    this.root = doc.createElement("div");
    this.root.className = "tlw-inspector";
    this.clear();
  }

  /** Show the kernel's answer for the selected node. */
  update(header: PanelInspectReply, buffers: DataView[]): void {
    const parts: HTMLElement[] = [this.titleBar(header)];
    if (this.onLineage && LINEAGE_KINDS.has(header.kind)) parts.push(this.lineageButtons(this.onLineage));
    if (header.exception) parts.push(this.exceptionBox(header.exception));
    if (header.nonfinite) parts.push(nonFiniteBox(this.doc, header.nonfinite));
    if (header.memory) parts.push(memoryBox(this.doc, header.memory, this.onSelect));
    this.runRows = [];
    if (header.runs) {
      const { box, rows } = runsBox(this.doc, header.runs, this.onRun);
      parts.push(box);
      this.runRows = rows;
    }
    parts.push(this.factsTable(header.facts));
    if (header.baseline) parts.push(this.baselineSection(header.baseline, buffers));
    if (header.value) parts.push(this.valueSection(header.value, buffers));
    this.root.replaceChildren(...parts);
    this.root.dataset.state = "node";
    this.root.dataset.kind = header.kind;
  }

  /** Shows "upstream"/"downstream" buttons on the nodes it draws from now on (null: none). */
  setLineageHandler(onLineage: ((direction: LineageDirection) => void) | null): void {
    this.onLineage = onLineage;
  }

  /** Makes the ops the panel names links that select them (null: plain text, nothing to tell). */
  setSelectHandler(onSelect: ((nodeId: string) => void) | null): void {
    this.onSelect = onSelect;
  }

  /** Makes a comparison's runs (the small multiples) buttons that show their run (null: plain rows). */
  setRunHandler(onRun: ((run: string) => void) | null): void {
    this.onRun = onRun;
  }

  /** The run shown changed (the kernel's `run`): its row is marked, the values are the same. */
  markShownRun(run: string): void {
    markShownRun(this.runRows, run);
  }

  /** Nothing selected. */
  clear(): void {
    this.showMessage("Click a node to inspect it.");
    this.root.dataset.state = "empty";
  }

  /** A one-line message instead of a node (loading, an error from the kernel). */
  showMessage(text: string): void {
    const message = this.el("p", "tlw-insp-message", text);
    this.root.replaceChildren(message);
    this.runRows = [];
    this.root.dataset.state = "message";
    delete this.root.dataset.kind;
  }

  dispose(): void {
    clearTimeout(this.resetTimer);
    this.root.remove();
  }

  private el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
    const node = this.doc.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  private titleBar(header: PanelInspectReply): HTMLElement {
    const bar = this.el("div", "tlw-insp-head");
    const kind =
      { op: "op", layer: "rolled op", module: "module", module_call: "module call", difference: "Δ", other: "node" }[header.kind] ?? "node";
    bar.append(this.el("span", "tlw-insp-kind", kind), this.el("span", "tlw-insp-title", header.title));
    const code = this.el("code", "tlw-insp-expr", header.expression);
    code.title = "Python expression for this record (the trace as `log`)";
    const button = this.el("button", "tlw-insp-copy", "Copy");
    button.type = "button";
    button.title = "Copy the Python expression";
    button.addEventListener("click", () => {
      const clipboard = this.doc.defaultView?.navigator?.clipboard;
      void copyExpression(header.expression, clipboard, () => this.selectText(code)).then((how) => {
        button.textContent = how === "copied" ? "Copied" : "Press Ctrl+C";
        clearTimeout(this.resetTimer);
        this.resetTimer = setTimeout(() => (button.textContent = "Copy"), 1500);
      });
    });
    bar.append(code, button);
    return bar;
  }

  private lineageButtons(onLineage: (direction: LineageDirection) => void): HTMLElement {
    const row = this.el("div", "tlw-insp-lineage");
    row.setAttribute("role", "group");
    row.setAttribute("aria-label", "Highlight the lineage of this node");
    row.append(this.el("span", "tlw-insp-lineage-title", "lineage"));
    for (const direction of ["upstream", "downstream"] as const) {
      const button = this.el("button", "tlw-insp-lineage-button", direction);
      button.type = "button";
      button.dataset.direction = direction;
      button.title = `Highlight every node ${direction === "upstream" ? "this one depends on" : "that depends on this one"}`;
      button.addEventListener("click", () => onLineage(direction));
      row.append(button);
    }
    return row;
  }

  /** The exception a partial capture's failing op raised: what a user opened the trace for. */
  private exceptionBox(text: string): HTMLElement {
    const box = this.el("div", "tlw-insp-exception");
    box.setAttribute("role", "alert");
    box.append(this.el("strong", undefined, "The forward pass failed here"), this.el("pre", undefined, text));
    return box;
  }

  private selectText(node: HTMLElement): void {
    const selection = this.doc.defaultView?.getSelection();
    if (!selection) return;
    const range = this.doc.createRange();
    range.selectNodeContents(node);
    selection.removeAllRanges();
    selection.addRange(range);
  }

  private factsTable(facts: FactRow[]): HTMLElement {
    return this.table(
      "tlw-insp-facts",
      facts.map((row) => [row.name, row.text ?? DASH, row.detail]),
    );
  }

  private table(className: string, rows: [string, string, string?][]): HTMLTableElement {
    const table = this.el("table", className);
    const body = this.el("tbody");
    for (const [name, value, detail] of rows) {
      const tr = this.el("tr");
      const th = this.el("th", undefined, name);
      th.scope = "row";
      const td = this.el("td", undefined, value);
      td.title = detail ?? value;
      tr.append(th, td);
      body.append(tr);
    }
    table.append(body);
    return table;
  }

  /** The node against the explorer's baseline: torchlens' row, then the summary of the difference. */
  private baselineSection(baseline: BaselineSection, buffers: DataView[]): HTMLElement {
    const section = this.el("section", "tlw-insp-baseline");
    section.dataset.status = String(baseline.facts.find((row) => row.key === "status")?.value ?? "none");
    section.append(this.el("h4", undefined, `vs ${baseline.reference}`));
    if (baseline.message) section.append(this.el("p", "tlw-insp-message", baseline.message));
    if (baseline.facts.length) section.append(this.factsTable(baseline.facts));
    if (baseline.value) section.append(this.valueSection(baseline.value, buffers, "difference"));
    return section;
  }

  private valueSection(value: ValueSection, buffers: DataView[], title = "value"): HTMLElement {
    const section = this.el("section", "tlw-insp-value");
    section.dataset.status = value.status;
    const heading = this.el("h4", undefined, title);
    if (value.source) heading.append(" ", this.el("code", undefined, value.source));
    if (value.note) heading.append(" ", this.el("span", "tlw-insp-note", `(${value.note})`));
    section.append(heading);
    if (value.status !== "summary" || !value.stats) {
      section.append(this.el("p", "tlw-insp-message", value.message ?? "No value summary."));
      return section;
    }
    section.append(this.el("p", "tlw-insp-coverage", describeCoverage(value.stats)));
    section.dataset.sampled = String(value.stats.sampled);
    section.append(this.table("tlw-insp-stats", statsRows(value.stats, value.of)));
    if (value.histogram) section.append(this.histogram(value.histogram, buffers));
    if (value.heatmap) section.append(this.heatmap(value.heatmap, buffers));
    return section;
  }

  private histogram(meta: HistogramMeta, buffers: DataView[]): HTMLElement {
    const figure = this.el("figure", "tlw-insp-hist");
    const view = bufferAt(buffers, meta.buffer, meta.bins * 4);
    if (!view) {
      figure.append(this.el("figcaption", undefined, "histogram: missing data"));
      return figure;
    }
    const counts = decodeUint32LE(view);
    const svg = this.doc.createElementNS(SVG_NS, "svg");
    svg.setAttribute("viewBox", `0 0 ${HIST_WIDTH} ${HIST_HEIGHT}`);
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", `histogram of finite values, ${meta.bins} bins`);
    histogramBars(counts, HIST_WIDTH, HIST_HEIGHT).forEach((bar, i) => {
      if (bar.height <= 0) return;
      const rect = this.doc.createElementNS(SVG_NS, "rect");
      rect.setAttribute("x", String(bar.x));
      rect.setAttribute("y", String(bar.y));
      rect.setAttribute("width", String(Math.max(bar.width - 0.5, 0.5)));
      rect.setAttribute("height", String(bar.height));
      const [a, b] = binRange(meta, i);
      const title = this.doc.createElementNS(SVG_NS, "title");
      title.textContent = `[${formatNumber(a)}, ${formatNumber(b)}): ${formatNumber(bar.count)}`;
      rect.append(title);
      svg.append(rect);
    });
    const axis = this.el("div", "tlw-insp-axis");
    axis.append(this.el("span", undefined, formatNumber(meta.lo)), this.el("span", undefined, formatNumber(meta.hi)));
    figure.append(svg, axis, this.el("figcaption", undefined, `histogram of ${formatNumber(meta.total)} finite values`));
    return figure;
  }

  private heatmap(meta: HeatmapMeta, buffers: DataView[]): HTMLElement {
    const figure = this.el("figure", "tlw-insp-heat");
    const cellsView = bufferAt(buffers, meta.buffer, meta.rows * meta.cols);
    const maskView = bufferAt(buffers, meta.mask_buffer, meta.rows * meta.cols);
    if (!cellsView || (meta.mask_buffer !== null && !maskView)) {
      figure.append(this.el("figcaption", undefined, "heatmap: missing data"));
      return figure;
    }
    const canvas = this.el("canvas");
    canvas.width = meta.cols;
    canvas.height = meta.rows;
    const size = heatmapCssSize(meta.rows, meta.cols, HEATMAP_MAX_CSS_WIDTH);
    canvas.style.width = `${size.width}px`;
    canvas.style.height = `${size.height}px`;
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", `heatmap of slice ${meta.slice}`);
    const context = canvas.getContext("2d");
    if (context) {
      const image = context.createImageData(meta.cols, meta.rows);
      image.data.set(heatmapRGBA(viewBytes(cellsView), maskView ? viewBytes(maskView) : null, meta.rows, meta.cols));
      context.putImageData(image, 0, 0);
    }
    const notes = [`slice ${meta.slice} of ${meta.slice_shape.join(" × ")}`, `${meta.rows} × ${meta.cols} cells`];
    if (meta.sampled) notes.push(`every ${meta.stride.join(" × ")} read`);
    if (meta.pooled) notes.push("each cell a block mean");
    notes.push(`colour ${formatNumber(meta.lo)} … ${formatNumber(meta.hi)}`);
    if (meta.mask_buffer !== null) notes.push("NaN pink, +Inf red, -Inf blue");
    figure.append(canvas, this.el("figcaption", undefined, notes.join(" · ")));
    return figure;
  }
}

// Appended to STYLES in js/view/styles.ts; scoped under .tlw-inspector, JupyterLab theme variables when present.
// The panel is laid out as a side column of the viewer row (.tlw-main, see the integration notes).
export const INSPECTOR_STYLES = `
.tlw-inspector { flex: 0 0 min(360px, 45%); box-sizing: border-box; min-width: 0; padding: 6px 8px; overflow: auto;
  border-left: 1px solid var(--jp-border-color2, #d0d0d0); background: var(--jp-layout-color1, #fff);
  color: var(--jp-ui-font-color1, #222); font-size: 12px; }
.tlw-insp-message { margin: 4px 0; color: var(--jp-ui-font-color2, #555); white-space: pre-wrap; }
.tlw-insp-head { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; margin-bottom: 4px; }
.tlw-insp-kind { padding: 0 6px; border-radius: 8px; font-size: 11px; background: var(--jp-layout-color3, #e0e0e0); }
.tlw-insp-title { font-weight: 600; font-family: var(--jp-code-font-family, monospace); }
.tlw-insp-expr { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
  font-family: var(--jp-code-font-family, monospace); user-select: all; }
.tlw-insp-copy { font: inherit; padding: 1px 8px; cursor: pointer; border-radius: 3px;
  border: 1px solid var(--jp-border-color1, #bbb); background: var(--jp-layout-color2, #f5f5f5); color: inherit; }
.tlw-insp-lineage { display: flex; align-items: center; gap: 4px; margin: 2px 0 4px; }
.tlw-insp-lineage-title { color: var(--jp-ui-font-color2, #555); margin-right: 2px; }
.tlw-insp-lineage-button { font: inherit; padding: 1px 8px; cursor: pointer; border-radius: 3px;
  border: 1px solid var(--jp-border-color1, #bbb); background: var(--jp-layout-color2, #f5f5f5); color: inherit; }
.tlw-insp-lineage-button:hover { border-color: #d81b60; }
.tlw-insp-exception { margin: 4px 0 6px; padding: 6px 8px; border: 1px solid var(--jp-error-color1, #b00020);
  border-radius: 3px; color: var(--jp-error-color1, #b00020); background: var(--jp-error-color3, #fdecea); }
.tlw-insp-exception pre { margin: 4px 0 0; white-space: pre-wrap; overflow-wrap: anywhere;
  font-family: var(--jp-code-font-family, monospace); }
.tlw-inspector table { width: 100%; table-layout: fixed; border-collapse: collapse; margin: 2px 0 6px; }
.tlw-inspector th { width: 9.5em; text-align: left; font-weight: normal; color: var(--jp-ui-font-color2, #555);
  padding: 1px 8px 1px 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; vertical-align: top; }
.tlw-inspector td { font-family: var(--jp-code-font-family, monospace); padding: 1px 0;
  overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.tlw-insp-baseline { margin: 4px 0 6px; padding-top: 2px; border-top: 1px solid var(--jp-border-color2, #d0d0d0); }
.tlw-insp-baseline > h4 { margin: 4px 0 2px; font-size: 12px; }
.tlw-insp-value h4 { margin: 6px 0 2px; font-size: 12px; }
.tlw-insp-value h4 code { font-weight: normal; }
.tlw-insp-note, .tlw-insp-coverage { color: var(--jp-ui-font-color2, #555); font-weight: normal; }
.tlw-insp-coverage { margin: 0 0 2px; }
.tlw-insp-value[data-sampled="true"] .tlw-insp-coverage { color: var(--jp-warn-color0, #a65e00); }
.tlw-inspector figure { margin: 4px 0 8px; }
.tlw-inspector figcaption { color: var(--jp-ui-font-color2, #555); font-size: 11px; }
.tlw-insp-hist svg { display: block; width: 100%; height: 64px;
  background: var(--jp-layout-color2, #f5f5f5); }
.tlw-insp-hist rect { fill: var(--jp-brand-color1, #1976d2); }
.tlw-insp-axis { display: flex; justify-content: space-between; font-size: 11px;
  font-family: var(--jp-code-font-family, monospace); color: var(--jp-ui-font-color2, #555); }
.tlw-insp-heat canvas { display: block; max-width: 100%; image-rendering: pixelated; border: 1px solid var(--jp-border-color2, #d0d0d0); }
${NONFINITE_STYLES}
${MEMORY_STYLES}
${RUNS_STYLES}`;
