// The memory strip's maths, apart from any DOM (tests/js/memory/strip-columns.test.ts): torchlens' series of
// live bytes binned into the canvas's pixel columns (min and max per column, so a 10,000-op trace draws
// as fast as a 100-op one and no spike between two columns is lost), where a point sits on the strip,
// which point a pointer is over, and byte counts written as torchlens writes them.

/** One pixel column: the points it covers (first..last, inclusive) and the extremes of their bytes. */
export interface StripColumn {
  first: number;
  last: number;
  /** Bytes above the baseline: the least and the most of the column's points. */
  min: number;
  max: number;
  /** The point with the most bytes: its bands are stacked in the column. */
  top: number;
}

/** The points pixel column `column` of `columns` covers: every point whose span on the strip meets it. */
export function columnPoints(column: number, columns: number, points: number): [number, number] {
  const first = Math.floor((column * points) / columns);
  const last = Math.max(first, Math.ceil(((column + 1) * points) / columns) - 1);
  return [Math.min(first, points - 1), Math.min(last, points - 1)];
}

/** Bins `values` (one per point, in execution order) into `columns` pixel columns. */
export function binColumns(values: ArrayLike<number>, columns: number): StripColumn[] {
  const points = values.length;
  if (!points || columns < 1) return [];
  const out: StripColumn[] = new Array(columns);
  for (let column = 0; column < columns; column++) {
    const [first, last] = columnPoints(column, columns, points);
    let min = values[first];
    let max = values[first];
    let top = first;
    for (let index = first + 1; index <= last; index++) {
      const value = values[index];
      if (value < min) min = value;
      if (value > max) {
        max = value;
        top = index;
      }
    }
    out[column] = { first, last, min, max, top };
  }
  return out;
}

/** The point under a pointer at `x` (CSS px from the strip's left edge) of a strip `width` px wide. */
export function pointAt(x: number, width: number, points: number): number | null {
  if (!points || !(width > 0) || !(x >= 0) || x > width) return null;
  return Math.min(points - 1, Math.floor((x / width) * points));
}

/** Where point `index` is drawn (CSS px): the middle of its span, so a mark sits on what a click picks. */
export function pointX(index: number, width: number, points: number): number {
  return ((index + 0.5) * width) / points;
}

/** A height in pixels for `bytes` on a strip whose top is `top` bytes and `height` px tall. */
export function barHeight(bytes: number, top: number, height: number): number {
  if (!(top > 0) || !(bytes > 0)) return 0;
  return Math.min(height, (bytes / top) * height);
}

const UNITS = ["KB", "MB", "GB", "TB", "PB"];

/** A byte count as torchlens prints one ("731.0 KB", "1023 B"): powers of 1024, one decimal. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "–";
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${UNITS[unit]}`;
}
