// One view's place in the page's WebGL budget (js/view/webgl-budget.ts), through the view's life. A view
// that went read-only (its kernel restarted or died) keeps its Model Explorer frame, and with it the
// frame's WebGL contexts: it keeps counting, else the next live explorers go past Chromium's limit
// and the browser drops the oldest contexts, blanking some view for good. When the budget needs a
// read-only view's place it is retired (its saved picture in place of the frame), not paused: with
// no kernel nothing could redraw it.
import { admit, CONTEXT_LIMIT, release, type BudgetEntry } from "./webgl-budget";

export interface ViewBudget {
  /** This view's entry (trackVisibility keeps its visibility current). */
  readonly entry: BudgetEntry;
  /** The view made a Model Explorer frame: it counts now (this may pause or retire another view). */
  hold(): void;
  /** The view's frame is gone or holds no WebGL context (closed, paused, lost, Netron). */
  free(): void;
  /** The kernel went away: a frame the view still holds keeps counting, and is retired if need be. */
  readOnly(): void;
}

/** `pause` frees a live view's frame (it redraws when shown); `retire` a read-only view's. */
export function viewBudget(
  contexts: number,
  frees: { pause(): void; retire(): void },
  limit = CONTEXT_LIMIT,
  live?: Set<BudgetEntry>,
): ViewBudget {
  let readOnly = false;
  const entry: BudgetEntry = {
    contexts,
    visible: false,
    lastVisible: 0,
    suspend: () => (readOnly ? frees.retire() : frees.pause()),
  };
  return {
    entry,
    hold: () => admit(entry, limit, live),
    free: () => release(entry, live),
    readOnly: () => {
      readOnly = true;
    },
  };
}
