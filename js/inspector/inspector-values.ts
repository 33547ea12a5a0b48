// The inspector's value summary as numbers and pixels, pure and tested on their own: coverage and
// statistics text, histogram bars, heatmap colours and sizes, the buffers a header points to, and
// copying a record's Python expression.
import { colourAt, type Rgb } from "../shared/colour";
import { formatNumber, formatPercent } from "../shared/number-format";
import { MASK_CODES, type HistogramMeta, type TensorStats } from "../kernel/protocol";

/** What the statistics cover: every element, or a deterministic strided sample. */
export function describeCoverage(stats: Pick<TensorStats, "numel" | "sample_size" | "sampled" | "stride">): string {
  if (!stats.sampled) return `all ${formatNumber(stats.numel)} elements`;
  return `sampled: ${formatNumber(stats.sample_size)} of ${formatNumber(stats.numel)} elements (every ${formatNumber(stats.stride)}th, deterministic)`;
}

/** Little-endian uint32 counts from a buffer, whatever its alignment. */
export function decodeUint32LE(view: DataView): Uint32Array {
  const count = Math.floor(view.byteLength / 4);
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) out[i] = view.getUint32(i * 4, true);
  return out;
}

export interface Bar {
  x: number;
  y: number;
  width: number;
  height: number;
  count: number;
}

/** Histogram bars in a width x height box (y grows down). A non-zero bin is at least 1 unit tall. */
export function histogramBars(counts: ArrayLike<number>, width: number, height: number, scale: "linear" | "log" = "linear"): Bar[] {
  const n = counts.length;
  if (n === 0 || width <= 0 || height <= 0) return [];
  const level = (c: number) => (scale === "log" ? Math.log1p(c) : c);
  let top = 0;
  for (let i = 0; i < n; i++) top = Math.max(top, level(counts[i]));
  const barWidth = width / n;
  const bars: Bar[] = [];
  for (let i = 0; i < n; i++) {
    const count = counts[i];
    const h = top > 0 && count > 0 ? Math.max(1, (level(count) / top) * height) : 0;
    bars.push({ x: i * barWidth, y: height - h, width: barWidth, height: h, count });
  }
  return bars;
}

/** The value range a histogram bin covers. */
export function binRange(meta: Pick<HistogramMeta, "lo" | "hi" | "bins">, index: number): [number, number] {
  const step = (meta.hi - meta.lo) / meta.bins;
  return [meta.lo + index * step, index === meta.bins - 1 ? meta.hi : meta.lo + (index + 1) * step];
}

/** Colour of a heatmap cell value 0..255 (the cell's position between the slice's finite min and max). */
export function heatColor(value: number): Rgb {
  return colourAt(value / 255);
}

/** The colours non-finite cells are drawn in, by their mask code. */
export const NONFINITE_COLORS: Record<number, Rgb> = {
  [MASK_CODES.nan]: [255, 0, 170],
  [MASK_CODES.posinf]: [230, 30, 30],
  [MASK_CODES.neginf]: [30, 80, 230],
};

/** RGBA pixels (one per cell) for a rows x cols grid of uint8 cells and an optional non-finite mask. */
export function heatmapRGBA(cells: Uint8Array, mask: Uint8Array | null, rows: number, cols: number): Uint8ClampedArray {
  const n = rows * cols;
  const out = new Uint8ClampedArray(n * 4);
  for (let i = 0; i < n; i++) {
    const code = mask ? mask[i] : MASK_CODES.finite;
    const [r, g, b] = code === MASK_CODES.finite ? heatColor(cells[i]) : (NONFINITE_COLORS[code] ?? [128, 128, 128]);
    out[i * 4] = r;
    out[i * 4 + 1] = g;
    out[i * 4 + 2] = b;
    out[i * 4 + 3] = 255;
  }
  return out;
}

/** CSS size of the heatmap: square cells, as large as fit in maxWidth (1..12 px), at least 12 px tall. */
export function heatmapCssSize(rows: number, cols: number, maxWidth: number): { width: number; height: number } {
  const cell = Math.max(1, Math.min(12, Math.floor(maxWidth / Math.max(1, cols))));
  return { width: cols * cell, height: Math.max(12, rows * cell) };
}

export interface ClipboardLike {
  writeText(text: string): Promise<void>;
}

/** Copy text to the clipboard; when there is none (insecure page, denied), select it for Ctrl+C instead. */
export async function copyExpression(
  text: string,
  clipboard: ClipboardLike | undefined | null,
  selectFallback: () => void,
): Promise<"copied" | "selected"> {
  if (clipboard && typeof clipboard.writeText === "function") {
    try {
      await clipboard.writeText(text);
      return "copied";
    } catch {
      // permission denied or not focused: fall through to selecting the text
    }
  }
  selectFallback();
  return "selected";
}

/** Label/value rows of the statistics table. */
export function statsRows(stats: TensorStats, of?: "abs"): [string, string][] {
  const prefix = of === "abs" ? "|x| " : "";
  const nonfinite = stats.count - stats.finite_count;
  const rows: [string, string][] = [
    [`${prefix}min`, formatNumber(stats.min)],
    [`${prefix}max`, formatNumber(stats.max)],
    [`${prefix}mean`, formatNumber(stats.mean)],
    [`${prefix}std`, formatNumber(stats.std)],
    ["zeros", formatPercent(stats.zero_fraction)],
    ["non-finite", formatPercent(stats.nonfinite_fraction)],
  ];
  if (nonfinite > 0) {
    rows.push([
      "NaN / +Inf / -Inf",
      `${formatNumber(stats.nan_count)} / ${formatNumber(stats.posinf_count)} / ${formatNumber(stats.neginf_count)}`,
    ]);
  }
  return rows;
}

/** The buffer a header entry points to, checked for the byte length it must have. */
export function bufferAt(buffers: DataView[], index: number | null | undefined, byteLength: number): DataView | null {
  if (index === null || index === undefined) return null;
  const view = buffers[index];
  return view && view.byteLength === byteLength ? view : null;
}

// ----- the panel --------------------------------------------------------------------------------------
