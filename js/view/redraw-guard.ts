// A WebGL context lost while its view is on screen is redrawn at once (the user sees no blank graph).
// A redraw makes new contexts, though: where the loss came from the page's limit (Chromium drops the
// oldest context past 16), it can drop another view's, which redraws in turn. So a view redraws by
// itself at most AUTO_REDRAWS times in any WINDOW_MS; past that it offers a Redraw button instead.

export const AUTO_REDRAWS = 3;
export const WINDOW_MS = 60_000;

/**
 * Returns `allow()`: true (and counted) while fewer than `limit` automatic redraws happened in the
 * last `windowMs`, else false (the caller offers the user a button).
 */
export function redrawGuard(limit = AUTO_REDRAWS, windowMs = WINDOW_MS, now = () => performance.now()): () => boolean {
  const recent: number[] = [];
  return () => {
    const at = now();
    while (recent.length && at - recent[0] >= windowMs) recent.shift();
    if (recent.length >= limit) return false;
    recent.push(at);
    return true;
  };
}
