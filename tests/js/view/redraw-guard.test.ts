import { describe, expect, it } from "vitest";
import { AUTO_REDRAWS, redrawGuard, WINDOW_MS } from "../../../js/view/redraw-guard";

describe("the guard on automatic redraws after a lost WebGL context", () => {
  it("allows a few redraws a minute, then none until the oldest is a minute old", () => {
    let now = 0;
    const allow = redrawGuard(AUTO_REDRAWS, WINDOW_MS, () => now);
    const answers = [];
    for (let i = 0; i < AUTO_REDRAWS + 2; i += 1) {
      answers.push(allow());
      now += 1000;
    }
    // Two views dropping each other's contexts in a loop stop redrawing by themselves (the button).
    expect(answers).toEqual([...Array(AUTO_REDRAWS).fill(true), false, false]);
    now = WINDOW_MS; // the first redraw is a minute old
    expect(allow()).toBe(true);
    expect(allow()).toBe(false);
  });

  it("never stops a view whose context is lost now and then", () => {
    let now = 0;
    const allow = redrawGuard(AUTO_REDRAWS, WINDOW_MS, () => now);
    for (let i = 0; i < 10; i += 1) {
      expect(allow()).toBe(true);
      now += WINDOW_MS / 2;
    }
  });
});
