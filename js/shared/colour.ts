// The colour scale every view draws values with (the inspector's heatmap, the Netron overlay), and
// the contrast arithmetic that picks readable text on it. Pure functions, unit-tested in
// tests/js/shared/colour.test.ts.

export type Rgb = readonly [number, number, number];

/**
 * Viridis, matplotlib's perceptually uniform map (readable in greyscale and by most colour-blind
 * readers), sampled at 9 even stops (0, 1/8, ..., 1) and interpolated linearly in sRGB in between:
 * dark violet (low) -> teal -> yellow (high). Its low end is dark, so it never looks like the light
 * hatched "no value" swatch.
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

/** The colour at position `t` (0..1, clamped; not a number: 0) of a piecewise-linear scale. */
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
