// Chromium keeps at most 16 live WebGL contexts per page and silently kills the oldest beyond that
// ("Too many active WebGL contexts"), leaving a blank Model Explorer. Measured: a Model Explorer frame
// makes 3 (a capability probe and two renderers), so a notebook keeps at most CONTEXT_LIMIT contexts'
// worth of explorers live: admitting one more pauses the explorer that has been off-screen the longest,
// and a paused explorer redraws when it scrolls back into view. Notebooks with five explorers or fewer
// never pause anything. The registry lives on globalThis (js/shared/page-globals.ts): each widget may load
// its own module copy.

import { pageGlobal } from "../shared/page-globals";

/** Chromium's 16, less one for WebGL the page itself may use. */
export const CONTEXT_LIMIT = 15;

/** WebGL contexts one Model Explorer frame makes: a probe, then a renderer pair per pane. */
export function contextsOf(panes: number): number {
  return 1 + 2 * panes;
}

export interface BudgetEntry {
  /** WebGL contexts its frame holds (contextsOf). */
  contexts: number;
  /** On screen now (an IntersectionObserver keeps this current). */
  visible: boolean;
  /** When it was last on screen (0: never), for choosing which to pause. */
  lastVisible: number;
  /** Frees the entry's frame; it is out of the registry when this is called. */
  suspend(): void;
}

function liveEntries(): Set<BudgetEntry> {
  return pageGlobal(
    "LiveFrames",
    () => new Set<BudgetEntry>(),
    (held): held is Set<BudgetEntry> => held instanceof Set,
  );
}

/**
 * Counts `entry` as holding a live frame; pauses the longest-hidden others while over the limit, or
 * `entry` itself if it is off screen and every other is on screen.
 */
export function admit(entry: BudgetEntry, limit = CONTEXT_LIMIT, live = liveEntries()): void {
  live.add(entry);
  while (contextsIn(live) > limit) {
    let victim: BudgetEntry | undefined;
    for (const other of live) {
      if (other === entry || other.visible) continue;
      if (!victim || other.lastVisible < victim.lastVisible) victim = other; // ties: the first admitted
    }
    // Every other live explorer is on screen: one off screen pauses itself (it draws when scrolled to;
    // a draw begun on screen can end after the user scrolled on). One on screen goes over the limit
    // rather than blank a visible explorer.
    if (!victim && !entry.visible) victim = entry;
    if (!victim) return;
    live.delete(victim);
    victim.suspend();
    if (victim === entry) return;
  }
}

/** The entry no longer holds a frame (closed, paused, or showing a viewer without WebGL). */
export function release(entry: BudgetEntry, live = liveEntries()): void {
  live.delete(entry);
}

/**
 * Keeps `entry.visible` and `entry.lastVisible` current for `el`, and calls `onShown` each time `el`
 * comes into view (where a paused explorer redraws) and `onFirstReport` once, when `entry.visible` is
 * known (until then it is only a guess). Returns the function that stops watching.
 */
export function trackVisibility(el: Element, entry: BudgetEntry, onShown: () => void, onFirstReport = () => {}): () => void {
  const observer = new IntersectionObserver((changes) => {
    entry.visible = changes[changes.length - 1].isIntersecting;
    onFirstReport();
    if (!entry.visible) return;
    entry.lastVisible = performance.now();
    onShown();
  });
  observer.observe(el);
  // A tab shown again is on screen again too (a GPU reset while hidden drops every context).
  const onTabShown = () => {
    if (document.visibilityState !== "visible" || !entry.visible) return;
    entry.lastVisible = performance.now();
    onShown();
  };
  document.addEventListener("visibilitychange", onTabShown);
  return () => {
    observer.disconnect();
    document.removeEventListener("visibilitychange", onTabShown);
  };
}

function contextsIn(live: Set<BudgetEntry>): number {
  let total = 0;
  for (const entry of live) total += entry.contexts;
  return total;
}
