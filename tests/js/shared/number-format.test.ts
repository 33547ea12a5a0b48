import { describe, expect, it } from "vitest";
import { formatNumber, formatPercent, LEGEND_STYLE } from "../../../js/shared/number-format";

describe("formatNumber", () => {
  it("groups integers, keeps 4 significant digits, switches to exponent at the extremes", () => {
    expect(formatNumber(1234567)).toBe("1,234,567");
    expect(formatNumber(-1234567)).toBe("-1,234,567");
    expect(formatNumber(0)).toBe("0");
    expect(formatNumber(0.123456)).toBe("0.1235");
    expect(formatNumber(-12.3456)).toBe("-12.35");
    expect(formatNumber(1.5e-7)).toBe("1.500e-7");
    expect(formatNumber(123456.5)).toBe("1.235e+5");
  });
  it("names the non-finite values and shows a dash for none", () => {
    expect(formatNumber(Number.NaN)).toBe("NaN");
    expect(formatNumber(Infinity)).toBe("+Inf");
    expect(formatNumber(-Infinity)).toBe("-Inf");
    expect(formatNumber(null)).toBe("–");
    expect(formatNumber(undefined)).toBe("–");
  });
});

describe("formatPercent", () => {
  it("never rounds a non-zero fraction to 0", () => {
    expect(formatPercent(0)).toBe("0%");
    expect(formatPercent(1e-8)).toBe("<0.01%");
    expect(formatPercent(0.5)).toBe("50%");
    expect(formatPercent(0.12345)).toBe("12.3%");
    expect(formatPercent(1)).toBe("100%");
    expect(formatPercent(null)).toBe("–");
  });
});

describe("the legend style", () => {
  it("keeps 3 significant digits, no grouping, and a trimmed exponent only at the extremes", () => {
    const legend = (x: number) => formatNumber(x, LEGEND_STYLE);
    expect(legend(0)).toBe("0");
    expect(legend(4.361629486083984)).toBe("4.36");
    expect(legend(12)).toBe("12");
    expect(legend(123456)).toBe("123000");
    expect(legend(0.001234)).toBe("0.00123");
    expect(legend(2e9)).toBe("2e+9");
    expect(legend(0.000012)).toBe("1.2e-5");
    expect(legend(-0.25)).toBe("-0.25");
  });
});
