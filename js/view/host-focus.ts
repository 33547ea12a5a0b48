// The page side of the frames' manners (js/frame/frame-manners.ts runs inside them): where the keyboard
// focus goes when the user leaves a viewer frame with Escape.

/**
 * Moves the keyboard focus from a viewer frame inside `root` back to the host page: to the nearest
 * focusable ancestor of the widget (JupyterLab's and Notebook 7's cell, in command mode), else the
 * page itself. The notebook does not scroll.
 */
export function giveFocusBack(root: HTMLElement): void {
  const active = document.activeElement;
  if (active instanceof HTMLIFrameElement && root.contains(active)) active.blur();
  for (let node = root.parentElement; node; node = node.parentElement) {
    if (node.hasAttribute("tabindex")) {
      node.focus({ preventScroll: true });
      return;
    }
  }
  (document.activeElement as HTMLElement | null)?.blur?.();
}
