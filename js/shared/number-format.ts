// Numbers as every view writes them (the inspector's tables, the Netron overlay's legend): compact and
// locale-independent. Pure, unit-tested in tests/js/shared/number-format.test.ts.

/** How a number is written where it is shown. */
export interface NumberStyle {
  /** Significant digits. */
  digits: number;
  /** Magnitudes from here up (and below 0.001) are written with an exponent. */
  exponentFrom: number;
  /** Whole numbers in full with thousands separators: 1,234,567. */
  groupIntegers: boolean;
  /** Trailing zeros of the mantissa dropped: 2e+9 rather than 2.00e+9. */
  trimExponent: boolean;
}

/** The inspector's tables: 1,234,567 / 0.1235 / 1.235e+5 / 1.500e-7. */
export const TABLE_STYLE: NumberStyle = { digits: 4, exponentFrom: 1e5, groupIntegers: true, trimExponent: false };

/** A legend's ends: 4.36 / 123000 / 2e+9 / 1.2e-5. */
export const LEGEND_STYLE: NumberStyle = { digits: 3, exponentFrom: 1e6, groupIntegers: false, trimExponent: true };

/** The dash a missing value is shown as. */
export const DASH = "–";

export function formatNumber(x: number | null | undefined, style: NumberStyle = TABLE_STYLE): string {
  if (x === null || x === undefined) return DASH;
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "+Inf";
  if (x === -Infinity) return "-Inf";
  if (style.groupIntegers && Number.isInteger(x) && Math.abs(x) < 1e15) return groupThousands(x);
  if (x === 0) return "0";
  const magnitude = Math.abs(x);
  if (magnitude >= style.exponentFrom || magnitude < 1e-3) {
    const text = x.toExponential(style.digits - 1);
    return style.trimExponent ? text.replace(/\.?0+e/, "e") : text;
  }
  return String(Number(x.toPrecision(style.digits)));
}

function groupThousands(x: number): string {
  return String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** A fraction as a percentage; tiny non-zero fractions are not rounded to 0. */
export function formatPercent(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined || Number.isNaN(fraction)) return DASH;
  if (fraction === 0) return "0%";
  if (fraction < 1e-4) return "<0.01%";
  if (fraction === 1) return "100%";
  return `${Number((fraction * 100).toPrecision(3))}%`;
}
