import { describe, expect, it } from "vitest";
import { clampWidth, KEY_STEP, MIN_GRAPH_WIDTH, MIN_INSPECTOR_WIDTH, widthForKey } from "../../../js/inspector/inspector-layout";

describe("clampWidth", () => {
  it("keeps the inspector between its narrowest and what leaves the graph its minimum", () => {
    expect(clampWidth(400, 1100)).toBe(400);
    expect(clampWidth(20, 1100)).toBe(MIN_INSPECTOR_WIDTH);
    expect(clampWidth(5000, 1100)).toBe(1100 - MIN_GRAPH_WIDTH);
  });

  it("gives the inspector its narrowest width even in a widget too small for both", () => {
    expect(clampWidth(300, 250)).toBe(MIN_INSPECTOR_WIDTH);
  });
});

describe("widthForKey", () => {
  it("moves the divider with the arrow keys (the inspector is on the right), four times as far with Shift", () => {
    expect(widthForKey("ArrowLeft", false, 320, 1100)).toBe(320 + KEY_STEP);
    expect(widthForKey("ArrowRight", false, 320, 1100)).toBe(320 - KEY_STEP);
    expect(widthForKey("ArrowLeft", true, 320, 1100)).toBe(320 + 4 * KEY_STEP);
  });

  it("goes to either end with Home and End, and ignores other keys", () => {
    expect(widthForKey("Home", false, 320, 1100)).toBe(1100 - MIN_GRAPH_WIDTH);
    expect(widthForKey("End", false, 320, 1100)).toBe(MIN_INSPECTOR_WIDTH);
    expect(widthForKey("Enter", false, 320, 1100)).toBeNull();
    expect(widthForKey("ArrowRight", false, MIN_INSPECTOR_WIDTH, 1100)).toBe(MIN_INSPECTOR_WIDTH);
  });
});
