// Runs INSIDE both viewer frames (imported by the Model Explorer shim, model-explorer/frame/frame-shim.ts and
// its shim-*.ts parts, and by netron/frame/frame-entry.ts, before the viewer's own scripts): the frame is a
// guest in the notebook page.
//
// The viewers focus their own elements as they draw: Netron focuses its graph on every open, Model
// Explorer its controls. A focus() inside a frame moves the page's keyboard focus into the frame and
// scrolls the page to it: after Run All, JupyterLab's command-mode keys (A, B, arrows, Shift+Enter)
// went into the last viewer that drew, and the notebook jumped back to it as the reader scrolled away.
// So here a viewer may move the focus only while the frame already holds it (the user clicked or
// tabbed in), and never scrolls the page to do so.

/** How long after a press in the frame a viewer's focus() counts as the user's (its own handlers' time). */
const PRESS_MS = 1000;
let lastPress = Number.NEGATIVE_INFINITY;

/**
 * Whether the user is in this frame: it holds the focus (a Tab or a click put it there), or the user
 * just pressed in it (a viewer that cancels the press's default focuses its graph itself). Not the
 * user activation: Chromium hands a key press in the notebook (Shift+Enter) to the page's frames too.
 */
function userIsHere(): boolean {
  return document.hasFocus() || performance.now() - lastPress < PRESS_MS;
}

/**
 * Scrolls `element` into view inside this frame's own scroll boxes, nearest edge, never the page
 * around the frame (a frame's scrollIntoView scrolls every ancestor document too).
 */
function scrollWithinFrame(element: Element): void {
  const target = element.getBoundingClientRect();
  for (let box = element.parentElement; box; box = box.parentElement) {
    const style = getComputedStyle(box);
    const scrollsY = /(auto|scroll)/.test(style.overflowY) && box.scrollHeight > box.clientHeight;
    const scrollsX = /(auto|scroll)/.test(style.overflowX) && box.scrollWidth > box.clientWidth;
    if (!scrollsX && !scrollsY) continue;
    const view = box.getBoundingClientRect();
    if (scrollsY) box.scrollTop += nearestShift(target.top, target.bottom, view.top, view.bottom);
    if (scrollsX) box.scrollLeft += nearestShift(target.left, target.right, view.left, view.right);
  }
}

/** How far to scroll so that [start, end] shows in [viewStart, viewEnd], moving as little as it can. */
export function nearestShift(start: number, end: number, viewStart: number, viewEnd: number): number {
  if (start >= viewStart && end <= viewEnd) return 0;
  if (start < viewStart || end - start > viewEnd - viewStart) return start - viewStart;
  return end - viewEnd;
}

/**
 * Keeps the viewer's programmatic focus inside the frame and off the page: a focus() while the user is
 * elsewhere is remembered and given when the user comes into the frame; none scrolls the page.
 */
export function keepFocusWithUser(): void {
  let wanted: WeakRef<HTMLElement | SVGElement> | null = null;
  const realFocus = new Map<object, (this: HTMLElement | SVGElement, options?: FocusOptions) => void>();
  for (const prototype of [HTMLElement.prototype, SVGElement.prototype]) {
    const real = prototype.focus;
    realFocus.set(prototype, real);
    prototype.focus = function (this: HTMLElement | SVGElement, options?: FocusOptions) {
      if (!userIsHere()) {
        wanted = new WeakRef(this);
        return;
      }
      real.call(this, { ...options, preventScroll: true });
    };
  }
  const realWindowFocus = window.focus.bind(window);
  const giveWanted = () => {
    const element = wanted?.deref();
    wanted = null;
    if (!element?.isConnected || (document.activeElement && document.activeElement !== document.body)) return false;
    const real = realFocus.get(element instanceof SVGElement ? SVGElement.prototype : HTMLElement.prototype);
    real?.call(element, { preventScroll: true });
    return true;
  };
  // A press in the frame is the user coming in. Netron cancels its graph's pointerdown (to pan), which
  // also cancels the focus a press gives: the frame takes it here, on the element the viewer wanted.
  for (const type of ["pointerdown", "mousedown", "touchstart"]) {
    window.addEventListener(
      type,
      (event) => {
        if (!event.isTrusted) return;
        lastPress = performance.now();
        if (!document.hasFocus() && !giveWanted()) realWindowFocus();
      },
      { capture: true, passive: true },
    );
  }
  // window.focus() from a frame would raise the frame (and its page) the same way.
  window.focus = () => undefined;
  Element.prototype.scrollIntoView = function (this: Element) {
    scrollWithinFrame(this);
  };
  // The user comes in (a click, a Tab): the element the viewer wanted focused gets it then, unless the
  // user's own click put the focus somewhere.
  window.addEventListener("focus", () => void giveWanted());
}

/** Tells the page when the user presses Escape in the frame: the page takes the focus back. */
export function forwardEscape(post: () => void): void {
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && event.isTrusted) post();
  });
}

/** Resolves once the browser has painted this frame after now (it runs no animation frame off screen). */
export function nextPaint(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
}
