import { describe, expect, it } from "vitest";
import { colourAt, hex } from "../../../js/shared/colour";
import { heatColor } from "../../../js/inspector/inspector-values";
import { nodeColour } from "../../../js/netron/frame/overlay";

// matplotlib's viridis (matplotlib/_cm_listed.py, 256 entries) at 0, 1/8, ..., 1, as hex.
const MATPLOTLIB_VIRIDIS: [number, string][] = [
  [0, "#440154"],
  [0.125, "#472d7b"],
  [0.25, "#3b528b"],
  [0.375, "#2c728e"],
  [0.5, "#21918c"],
  [0.625, "#28ae80"],
  [0.75, "#5ec962"],
  [0.875, "#aadc32"],
  [1, "#fde725"],
];

describe("the colour scale", () => {
  it("is matplotlib's viridis", () => {
    for (const [t, expected] of MATPLOTLIB_VIRIDIS) expect(hex(colourAt(t))).toBe(expected);
  });

  it("is the same in the inspector's heatmap and the Netron overlay", () => {
    for (let cell = 0; cell <= 255; cell += 1) {
      expect(hex(heatColor(cell))).toBe(nodeColour(cell, { min: 0, max: 255 }).fill);
    }
  });
});
