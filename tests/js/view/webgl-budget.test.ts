import { describe, expect, it, vi } from "vitest";
import { admit, contextsOf, release, type BudgetEntry } from "../../../js/view/webgl-budget";

function entry(visible: boolean, lastVisible: number): BudgetEntry & { suspend: ReturnType<typeof vi.fn> } {
  return { contexts: 1, visible, lastVisible, suspend: vi.fn() };
}

describe("the page's WebGL frame budget", () => {
  it("pauses nothing while under the limit", () => {
    const live = new Set<BudgetEntry>();
    const entries = [entry(false, 0), entry(false, 0)];
    for (const e of entries) admit(e, 2, live);
    expect(entries.every((e) => e.suspend.mock.calls.length === 0)).toBe(true);
  });

  it("pauses the explorer hidden the longest, never a visible one or the one being admitted", () => {
    const live = new Set<BudgetEntry>();
    const onScreen = entry(true, 50);
    const hiddenLong = entry(false, 10);
    const hiddenRecently = entry(false, 40);
    for (const e of [onScreen, hiddenRecently, hiddenLong]) admit(e, 3, live);
    const newcomer = entry(false, 0); // never seen yet, but it is the one being drawn
    admit(newcomer, 3, live);
    expect(hiddenLong.suspend).toHaveBeenCalledTimes(1);
    expect([onScreen, hiddenRecently, newcomer].map((e) => e.suspend.mock.calls.length)).toEqual([0, 0, 0]);
    expect(live.has(hiddenLong)).toBe(false);
    expect(live.size).toBe(3);
  });

  it("pauses the explorer being admitted when it is off screen and every other is on screen", () => {
    // A draw begun on screen whose frame comes after the user scrolled on: six frames would be live.
    const live = new Set<BudgetEntry>();
    const visible = [entry(true, 1), entry(true, 2)];
    for (const e of visible) admit(e, 2, live);
    const scrolledOff = entry(false, 3);
    admit(scrolledOff, 2, live);
    expect(scrolledOff.suspend).toHaveBeenCalledTimes(1);
    expect(visible.map((e) => e.suspend.mock.calls.length)).toEqual([0, 0]);
    expect(live.has(scrolledOff)).toBe(false);
  });

  it("goes over the limit rather than blank a visible explorer", () => {
    const live = new Set<BudgetEntry>();
    const visible = [entry(true, 1), entry(true, 2), entry(true, 3)];
    for (const e of visible) admit(e, 2, live);
    expect(visible.every((e) => e.suspend.mock.calls.length === 0)).toBe(true);
    expect(live.size).toBe(3);
  });

  it("counts contexts, not frames: a two-pane diff weighs more", () => {
    const live = new Set<BudgetEntry>();
    const hidden = [entry(false, 1), entry(false, 2)];
    for (const e of hidden) admit(e, 3, live);
    admit({ ...entry(false, 3), contexts: 2 }, 3, live);
    expect(hidden.map((e) => e.suspend.mock.calls.length)).toEqual([1, 0]);
    expect(contextsOf(1)).toBe(3);
  });

  it("forgets a released explorer", () => {
    const live = new Set<BudgetEntry>();
    const closed = entry(false, 0);
    admit(closed, 1, live);
    release(closed, live);
    admit(entry(false, 0), 1, live);
    expect(closed.suspend).not.toHaveBeenCalled();
  });
});
