// Pure parts of the Netron overlay (a value per node, drawn as box colours with a legend): the
// message check, the colour scale, the text colour on top of it and the legend's model. Unit-tested
// in tests/js/netron/frame/overlay.test.ts; painter.ts applies them to Netron's SVG.
import { colourAt, hex, textColour, VIRIDIS, type Rgb } from "../../shared/colour";
import { formatNumber, LEGEND_STYLE } from "../../shared/number-format";
import type { NetronOverlay } from "../../kernel/protocol";

/** An overlay checked for use: finite values only, min <= max. */
export interface CheckedOverlay {
  title: string;
  unit: string;
  values: Map<string, number>;
  min: number;
  max: number;
  coverage: string;
  /** Entries dropped because the value was not a finite number (missing is never drawn as zero). */
  dropped: number;
}

/**
 * Checks an overlay as it arrives over postMessage (the frame trusts nothing it is sent): values
 * that are not finite numbers are dropped (drawn as "no value", never as zero), a missing or
 * non-finite min/max is taken from the values, and a reversed range is swapped. Returns null for
 * null and for anything that is not an overlay object.
 */
export function checkOverlay(raw: unknown): CheckedOverlay | null {
  if (!raw || typeof raw !== "object") return null;
  const source = raw as Partial<Record<keyof NetronOverlay, unknown>>;
  const values = new Map<string, number>();
  let dropped = 0;
  if (source.values && typeof source.values === "object") {
    for (const [name, value] of Object.entries(source.values as Record<string, unknown>)) {
      if (typeof value === "number" && Number.isFinite(value)) values.set(name, value);
      else dropped++;
    }
  }
  let low = Infinity;
  let high = -Infinity;
  for (const value of values.values()) {
    if (value < low) low = value;
    if (value > high) high = value;
  }
  let min = typeof source.min === "number" && Number.isFinite(source.min) ? source.min : low;
  let max = typeof source.max === "number" && Number.isFinite(source.max) ? source.max : high;
  if (!Number.isFinite(min)) min = 0;
  if (!Number.isFinite(max)) max = min;
  if (min > max) [min, max] = [max, min];
  return {
    title: typeof source.title === "string" ? source.title : "",
    unit: typeof source.unit === "string" ? source.unit : "",
    values,
    min,
    max,
    coverage: typeof source.coverage === "string" ? source.coverage : "",
    dropped,
  };
}

// ----- colour ----------------------------------------------------------------------------------------

/** Where `value` sits on [min, max] as 0..1 (clamped); a degenerate range (min = max) puts every value mid-scale. */
export function scalePosition(value: number, min: number, max: number): number {
  if (!(max > min)) return 0.5;
  const t = (value - min) / (max - min);
  return Math.min(1, Math.max(0, t));
}

export interface NodeColour {
  fill: string;
  text: string;
}

/** The box colour (and readable text colour on it) for a value of `overlay`. */
export function nodeColour(value: number, overlay: Pick<CheckedOverlay, "min" | "max">): NodeColour {
  const colour = colourAt(scalePosition(value, overlay.min, overlay.max));
  return { fill: hex(colour), text: textColour(colour) };
}

/** "No value": a light grey under diagonal hatching, with dark text. */
export const MISSING = { fill: "#ececec", hatch: "#b4b4b4", text: "#444444" } as const;

// ----- legend ----------------------------------------------------------------------------------------

/** CSS linear-gradient (left to right) through the scale's stops. */
export function gradientCss(stops: readonly Rgb[] = VIRIDIS): string {
  const parts = stops.map((stop, i) => `${hex(stop)} ${Math.round((i / (stops.length - 1)) * 100)}%`);
  return `linear-gradient(to right, ${parts.join(", ")})`;
}

export interface DrawnCounts {
  /** Boxes on screen that got a colour. */
  coloured: number;
  /** Boxes on screen without a value (hatched). */
  missing: number;
}

export interface LegendModel {
  title: string;
  minText: string;
  maxText: string;
  gradient: string;
  missingText: string;
  coverage: string;
  /** What the graph on screen shows, e.g. "this graph: 12 coloured, 3 no value". */
  drawn: string;
}

/** What the legend box says. */
export function legendModel(overlay: CheckedOverlay, drawn?: DrawnCounts): LegendModel {
  const unit = overlay.unit ? ` ${overlay.unit}` : "";
  // Values outside [min, max] take the end colours: the legend says so ("≤ min", "≥ max").
  let below = false;
  let above = false;
  for (const value of overlay.values.values()) {
    if (value < overlay.min) below = true;
    if (value > overlay.max) above = true;
  }
  return {
    title: overlay.title || "value",
    minText: `${below ? "\u2264 " : ""}${formatNumber(overlay.min, LEGEND_STYLE)}${unit}`,
    maxText: `${above ? "\u2265 " : ""}${formatNumber(overlay.max, LEGEND_STYLE)}${unit}`,
    gradient: gradientCss(),
    missingText: "no value",
    coverage: overlay.coverage,
    drawn: drawn ? `this graph: ${drawn.coloured} coloured, ${drawn.missing} no value` : "",
  };
}
