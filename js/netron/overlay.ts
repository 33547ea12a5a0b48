// Pure parts of the Netron overlay (a value per node, drawn as box colours with a legend): the
// message check, the colour scale, the text colour on top of it and the legend's model. Unit-tested
// in tests/js/netron-overlay.test.ts; frame-host.ts applies them to Netron's SVG.

/** A value per Netron node name, coloured on the graph (parent -> frame; null clears). */
export interface NetronOverlay {
  /** What is shown, e.g. "time (ms per op)". */
  title: string;
  /** Unit appended to the legend's min and max, e.g. "ms". */
  unit?: string;
  /** Netron node name (torchlens label, module address, layer label) -> value. */
  values: Record<string, number>;
  /** Value drawn with the first colour of the scale (lower values are clamped to it). */
  min: number;
  /** Value drawn with the last colour of the scale (higher values are clamped to it). */
  max: number;
  /** What the values cover, e.g. "time on 561 of 567 nodes; 6 not measured". */
  coverage: string;
}

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

export type Rgb = readonly [number, number, number];

/**
 * Viridis (matplotlib's perceptually uniform, colour-blind safe map), sampled at 9 even stops and
 * interpolated linearly in sRGB in between: dark violet (low) -> teal -> yellow (high). Its low end
 * is dark, so it never looks like the light hatched "no value" swatch.
 */
export const VIRIDIS: readonly Rgb[] = [
  [68, 1, 84],
  [71, 45, 123],
  [59, 82, 139],
  [44, 114, 142],
  [33, 145, 140],
  [40, 174, 128],
  [94, 201, 98],
  [170, 220, 50],
  [253, 231, 37],
];

/** Where `value` sits on [min, max] as 0..1 (clamped); a degenerate range (min = max) puts every value mid-scale. */
export function scalePosition(value: number, min: number, max: number): number {
  if (!(max > min)) return 0.5;
  const t = (value - min) / (max - min);
  return t <= 0 ? 0 : t >= 1 ? 1 : t;
}

/** The colour at position `t` (0..1, clamped) of a piecewise-linear scale. */
export function colourAt(t: number, stops: readonly Rgb[] = VIRIDIS): Rgb {
  const clamped = Number.isFinite(t) ? Math.min(1, Math.max(0, t)) : 0;
  const scaled = clamped * (stops.length - 1);
  const index = Math.min(stops.length - 2, Math.floor(scaled));
  const f = scaled - index;
  const [a, b] = [stops[index], stops[index + 1]];
  return [0, 1, 2].map((i) => Math.round(a[i] + (b[i] - a[i]) * f)) as unknown as Rgb;
}

export function hex(colour: Rgb): string {
  return `#${colour.map((channel) => channel.toString(16).padStart(2, "0")).join("")}`;
}

/** WCAG relative luminance of an sRGB colour (0 black .. 1 white). */
export function luminance(colour: Rgb): number {
  const linear = colour.map((channel) => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2];
}

/** Black or white, whichever has the higher WCAG contrast ratio on `background`. */
export function textColour(background: Rgb): "#000000" | "#ffffff" {
  const l = luminance(background);
  const onBlack = (l + 0.05) / 0.05;
  const onWhite = 1.05 / (l + 0.05);
  return onBlack >= onWhite ? "#000000" : "#ffffff";
}

/** WCAG contrast ratio between two colours (1..21). */
export function contrast(a: Rgb, b: Rgb): number {
  const [la, lb] = [luminance(a), luminance(b)];
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
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

/** A number for the legend: up to 3 significant digits, no exponent for ordinary magnitudes. */
export function formatValue(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (value === 0) return "0";
  const magnitude = Math.abs(value);
  if (magnitude >= 1e6 || magnitude < 1e-3) return value.toExponential(2).replace(/\.?0+e/, "e");
  return String(Number(value.toPrecision(3)));
}

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
    minText: `${below ? "\u2264 " : ""}${formatValue(overlay.min)}${unit}`,
    maxText: `${above ? "\u2265 " : ""}${formatValue(overlay.max)}${unit}`,
    gradient: gradientCss(),
    missingText: "no value",
    coverage: overlay.coverage,
    drawn: drawn ? `this graph: ${drawn.coloured} coloured, ${drawn.missing} no value` : "",
  };
}
