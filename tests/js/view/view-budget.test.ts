import { describe, expect, it, vi } from "vitest";
import type { BudgetEntry } from "../../../js/view/webgl-budget";
import { viewBudget } from "../../../js/view/view-budget";

/** A view of one WebGL context on a page whose budget is `live`, with what its frame's release does. */
function view(live: Set<BudgetEntry>, lastVisible: number) {
  const frees = { pause: vi.fn(), retire: vi.fn() };
  const budget = viewBudget(1, frees, 2, live);
  budget.entry.lastVisible = lastVisible;
  return { budget, ...frees };
}

describe("a view's place in the page's WebGL budget", () => {
  it("keeps a read-only view's frame counted, and retires it (its picture) when a live explorer needs its place", () => {
    const live = new Set<BudgetEntry>();
    const restarted = view(live, 1); // its kernel restarted while it showed a graph
    const other = view(live, 2);
    restarted.budget.hold();
    other.budget.hold();
    restarted.budget.readOnly();
    expect(live.size).toBe(2); // its frame still holds its WebGL context
    const next = view(live, 3); // a cell run on the new kernel
    next.budget.hold();
    // The page stays within the limit: the read-only view's frame goes, and it shows its picture.
    expect(live.size).toBe(2);
    expect(restarted.retire).toHaveBeenCalledTimes(1);
    expect(restarted.pause).not.toHaveBeenCalled();
    expect([other.pause, other.retire, next.pause, next.retire].every((fn) => fn.mock.calls.length === 0)).toBe(true);
  });

  it("pauses a live view the budget needs (it redraws when shown)", () => {
    const live = new Set<BudgetEntry>();
    const hidden = view(live, 1);
    hidden.budget.hold();
    view(live, 2).budget.hold();
    view(live, 3).budget.hold();
    expect(hidden.pause).toHaveBeenCalledTimes(1);
    expect(hidden.retire).not.toHaveBeenCalled();
  });

  it("frees its place when its frame goes", () => {
    const live = new Set<BudgetEntry>();
    const closed = view(live, 1);
    closed.budget.hold();
    closed.budget.free();
    expect(live.size).toBe(0);
  });
});
