import { describe, expect, it } from "vitest";
import { colourAt, contrast, hex, luminance, textColour, VIRIDIS, type Rgb } from "../../../../js/shared/colour";
import { checkOverlay, gradientCss, legendModel, MISSING, nodeColour, scalePosition } from "../../../../js/netron/frame/overlay";

const overlay = {
  title: "time (ms per op)",
  unit: "ms",
  values: { linear_1_11: 0.5, gelu_1_31: 4.36, input_1: 0 },
  min: 0,
  max: 4.36,
  coverage: "time on 3 of 4 nodes; 1 not measured",
};

describe("checkOverlay", () => {
  it("keeps a well-formed overlay as is", () => {
    const checked = checkOverlay(overlay)!;
    expect(checked.title).toBe("time (ms per op)");
    expect(checked.unit).toBe("ms");
    expect([...checked.values]).toEqual([
      ["linear_1_11", 0.5],
      ["gelu_1_31", 4.36],
      ["input_1", 0],
    ]);
    expect([checked.min, checked.max, checked.dropped]).toEqual([0, 4.36, 0]);
    expect(checked.coverage).toBe(overlay.coverage);
  });

  it("is null for null (clear) and for anything that is not an object", () => {
    expect(checkOverlay(null)).toBeNull();
    expect(checkOverlay(undefined)).toBeNull();
    expect(checkOverlay("time")).toBeNull();
  });

  it("drops values that are not finite numbers: missing is never zero", () => {
    const checked = checkOverlay({ ...overlay, values: { a: 1, b: NaN, c: Infinity, d: null, e: "2", f: 0 } })!;
    expect([...checked.values.keys()]).toEqual(["a", "f"]);
    expect(checked.values.has("b")).toBe(false);
    expect(checked.dropped).toBe(4);
  });

  it("takes a missing min/max from the values and swaps a reversed range", () => {
    const derived = checkOverlay({ title: "t", values: { a: 3, b: -1, c: 7 }, coverage: "" })!;
    expect([derived.min, derived.max]).toEqual([-1, 7]);
    expect(derived.unit).toBe("");
    const reversed = checkOverlay({ ...overlay, min: 10, max: 2 })!;
    expect([reversed.min, reversed.max]).toEqual([2, 10]);
    const empty = checkOverlay({ title: "t", values: {}, coverage: "" })!;
    expect([empty.min, empty.max]).toEqual([0, 0]);
  });

  it("treats inherited-looking names as ordinary names", () => {
    const checked = checkOverlay({ ...overlay, values: JSON.parse('{"constructor": 1, "__proto__": 2}') })!;
    expect(checked.values.get("constructor")).toBe(1);
    expect(checked.values.get("__proto__")).toBe(2);
    expect(checked.values.get("toString")).toBeUndefined();
  });
});

describe("colour scale", () => {
  it("maps [min, max] onto 0..1, clamping outside values", () => {
    expect(scalePosition(0, 0, 4)).toBe(0);
    expect(scalePosition(1, 0, 4)).toBe(0.25);
    expect(scalePosition(4, 0, 4)).toBe(1);
    expect(scalePosition(-3, 0, 4)).toBe(0);
    expect(scalePosition(9, 0, 4)).toBe(1);
  });

  it("puts every value mid-scale when min = max", () => {
    expect(scalePosition(2, 2, 2)).toBe(0.5);
  });

  it("starts and ends on the scale's stops and interpolates in between", () => {
    expect(colourAt(0)).toEqual(VIRIDIS[0]);
    expect(colourAt(1)).toEqual(VIRIDIS[VIRIDIS.length - 1]);
    expect(colourAt(0.5)).toEqual(VIRIDIS[4]);
    const halfway = colourAt(0.5 / (VIRIDIS.length - 1));
    for (let i = 0; i < 3; i++) expect(halfway[i]).toBe(Math.round((VIRIDIS[0][i] + VIRIDIS[1][i]) / 2));
    expect(colourAt(-1)).toEqual(VIRIDIS[0]);
    expect(colourAt(NaN)).toEqual(VIRIDIS[0]);
  });

  it("gets lighter from min to max (a sequential scale)", () => {
    let previous = -1;
    for (let i = 0; i <= 20; i++) {
      const l = luminance(colourAt(i / 20));
      expect(l).toBeGreaterThan(previous);
      previous = l;
    }
  });

  it("writes hex", () => {
    expect(hex([68, 1, 84])).toBe("#440154");
    expect(hex([255, 255, 255])).toBe("#ffffff");
  });
});

describe("text colour", () => {
  it("uses the WCAG luminance", () => {
    expect(luminance([0, 0, 0])).toBe(0);
    expect(luminance([255, 255, 255])).toBeCloseTo(1, 10);
    expect(luminance([255, 0, 0])).toBeCloseTo(0.2126, 4);
  });

  it("is white on dark and black on light boxes", () => {
    expect(textColour(VIRIDIS[0])).toBe("#ffffff");
    expect(textColour(VIRIDIS[VIRIDIS.length - 1])).toBe("#000000");
    expect(textColour([255, 255, 255])).toBe("#000000");
    expect(textColour([0, 0, 0])).toBe("#ffffff");
  });

  it("keeps at least 4.5:1 contrast (WCAG AA) everywhere on the scale", () => {
    for (let i = 0; i <= 100; i++) {
      const background = colourAt(i / 100);
      const text: Rgb = textColour(background) === "#000000" ? [0, 0, 0] : [255, 255, 255];
      expect(contrast(background, text)).toBeGreaterThanOrEqual(4.5);
    }
  });

  it("gives a node its fill and text colour", () => {
    expect(nodeColour(0, { min: 0, max: 4 })).toEqual({ fill: "#440154", text: "#ffffff" });
    expect(nodeColour(4, { min: 0, max: 4 })).toEqual({ fill: "#fde725", text: "#000000" });
  });

  it("keeps 'no value' apart from the low end (missing is never drawn as zero)", () => {
    const missing: Rgb = [0xec, 0xec, 0xec];
    expect(MISSING.fill).toBe("#ececec");
    expect(contrast(missing, colourAt(0))).toBeGreaterThan(7);
    expect(nodeColour(0, { min: 0, max: 1 }).fill).not.toBe(MISSING.fill);
  });
});

describe("legend", () => {
  it("has a gradient through every stop", () => {
    const css = gradientCss();
    expect(css.startsWith("linear-gradient(to right, #440154 0%")).toBe(true);
    expect(css.endsWith("#fde725 100%)")).toBe(true);
    expect(css.split("#").length - 1).toBe(VIRIDIS.length);
  });

  it("says title, range with unit, the no-value swatch, coverage and what is on screen", () => {
    const model = legendModel(checkOverlay(overlay)!, { coloured: 2, missing: 1 });
    expect(model).toEqual({
      title: "time (ms per op)",
      minText: "0 ms",
      maxText: "4.36 ms",
      gradient: gradientCss(),
      missingText: "no value",
      coverage: "time on 3 of 4 nodes; 1 not measured",
      drawn: "this graph: 2 coloured, 1 no value",
    });
    const clamped = legendModel(checkOverlay({ ...overlay, min: 0.1, max: 1 })!);
    expect([clamped.minText, clamped.maxText]).toEqual(["\u2264 0.1 ms", "\u2265 1 ms"]);
    const bare = legendModel(checkOverlay({ title: "", values: { a: 1 }, min: 1, max: 1, coverage: "" })!);
    expect([bare.title, bare.minText, bare.maxText, bare.drawn]).toEqual(["value", "1", "1", ""]);
  });
});
