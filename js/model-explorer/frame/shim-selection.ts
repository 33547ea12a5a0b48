// Inside the Model Explorer frame (frame-shim.ts): tells the parent which of the app's node selections
// the user made. The app reports every selection alike (ME_NODE_SELECTED), the ones the parent asked
// for too, and late: a select first reveals its node through the app's layout worker. Taken for the
// user's, the echo of an older select would reach the kernel after a newer one and undo it.
import { ME_SELECT_NODE, SHIM_SELECT_HEARD, SHIM_USER_PRESSED, type ShimPost } from "../protocol";

/** What the user does to select: a press (a click, a tap, Alt+click on a search result) or a key. */
export const PRESSES = ["pointerdown", "mousedown", "touchstart", "keydown"] as const;

/**
 * Posts SHIM_SELECT_HEARD as the parent's select arrives (before the app hears it: this runs before the
 * app's scripts) and SHIM_USER_PRESSED at the user's first press after it. The parent hears the frame's
 * messages in the order they were posted: a selection it hears after a press is the user's, and one it
 * hears after a select, with no press since, is the app answering that select.
 */
export function reportWhoSelects(post: ShimPost, trusted: (event: Event) => boolean): void {
  let pressedSinceSelect = false;
  window.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as { cmd?: string } | undefined;
    if (event.source !== window.parent || !trusted(event) || data?.cmd !== ME_SELECT_NODE) return;
    pressedSinceSelect = false;
    post({ cmd: SHIM_SELECT_HEARD });
  });
  const pressed = (event: Event) => {
    // The app's own synthetic keys (the parent's fit is a space key) are not the user's.
    if (!event.isTrusted || pressedSinceSelect) return;
    pressedSinceSelect = true;
    post({ cmd: SHIM_USER_PRESSED });
  };
  for (const type of PRESSES) window.addEventListener(type, pressed, { capture: true, passive: true });
}
