// The memory strip's maths (js/memory/strip-columns.ts): torchlens' series binned into pixel columns (min and
// max per column), the point a click at x picks, where a point's mark is drawn, bytes as torchlens
// writes them.
import { describe, expect, it } from "vitest";
import { barHeight, binColumns, columnPoints, formatBytes, pointAt, pointX } from "../../../js/memory/strip-columns";

describe("binning into pixel columns", () => {
  it("gives every point to some column, in order, whether there are more points or more columns", () => {
    for (const [points, columns] of [
      [10_000, 997],
      [103, 1000],
      [7, 7],
      [1, 50],
      [50, 1],
    ]) {
      let next = 0;
      for (let column = 0; column < columns; column++) {
        const [first, last] = columnPoints(column, columns, points);
        expect(first).toBeLessThanOrEqual(last);
        expect(first).toBeLessThanOrEqual(next); // no point skipped
        next = Math.max(next, last + 1);
        expect(last).toBeLessThan(points);
      }
      expect(next).toBe(points);
    }
  });

  it("keeps each column's least and most bytes, and the point with the most (a one-op spike survives)", () => {
    const values = new Array(10_000).fill(5);
    values[4321] = 900; // one op's peak among 10,000
    values[8000] = 1;
    const bins = binColumns(values, 1000);
    expect(bins).toHaveLength(1000);
    const spike = bins.find((bin) => bin.first <= 4321 && 4321 <= bin.last);
    expect(spike).toMatchObject({ max: 900, min: 5, top: 4321 });
    const dip = bins.find((bin) => bin.first <= 8000 && 8000 <= bin.last);
    expect(dip).toMatchObject({ max: 5, min: 1 });
    expect(Math.max(...bins.map((bin) => bin.max))).toBe(900);
  });

  it("draws each of a few points as a run of columns with that point's bytes", () => {
    const bins = binColumns([1, 3, 2], 6);
    expect(bins.map((bin) => [bin.first, bin.last, bin.max])).toEqual([
      [0, 0, 1],
      [0, 0, 1],
      [1, 1, 3],
      [1, 1, 3],
      [2, 2, 2],
      [2, 2, 2],
    ]);
    expect(binColumns([], 10)).toEqual([]);
  });
});

describe("hit-testing and marks", () => {
  it("a click at x picks the point whose span holds x", () => {
    expect(pointAt(0, 500, 103)).toBe(0);
    expect(pointAt(499.9, 500, 103)).toBe(102);
    expect(pointAt(500, 500, 103)).toBe(102); // the right edge is the last op
    expect(pointAt(250, 500, 4)).toBe(2);
    expect(pointAt(124.9, 500, 4)).toBe(0);
    expect(pointAt(125, 500, 4)).toBe(1);
    expect(pointAt(-1, 500, 4)).toBeNull();
    expect(pointAt(501, 500, 4)).toBeNull();
    expect(pointAt(10, 0, 4)).toBeNull();
    expect(pointAt(10, 500, 0)).toBeNull();
  });

  it("a point's mark is in the middle of its span, where a click picks it back", () => {
    for (const points of [1, 3, 103, 10_000]) {
      for (const index of [0, Math.floor(points / 2), points - 1]) {
        expect(pointAt(pointX(index, 640, points), 640, points)).toBe(index);
      }
    }
    expect(pointX(0, 400, 4)).toBe(50);
  });

  it("scales bytes to the strip's height, the top at the peak, nothing below zero or above the top", () => {
    expect(barHeight(50, 100, 80)).toBe(40);
    expect(barHeight(100, 100, 80)).toBe(80);
    expect(barHeight(200, 100, 80)).toBe(80);
    expect(barHeight(0, 100, 80)).toBe(0);
    expect(barHeight(5, 0, 80)).toBe(0); // nothing alive above the baseline anywhere
  });
});

describe("bytes as torchlens writes them", () => {
  it.each([
    [0, "0 B"],
    [1023, "1023 B"],
    [1024, "1.0 KB"],
    [1_048_575, "1024.0 KB"],
    [1_048_576, "1.0 MB"],
    [5_662_310, "5.4 MB"],
    [3_221_225_472, "3.0 GB"],
    [3_377_699_720_527_872, "3.0 PB"],
  ])("%d bytes: %s", (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
