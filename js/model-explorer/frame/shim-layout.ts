// Inside the Model Explorer frame (frame-shim.ts): the app inside the widget's layout. Its info panel
// starts closed, the parent's fit and image requests are answered, and Escape reaches the page.
import { forwardEscape } from "../../frame/frame-manners";
import { SHIM_ESCAPE, SHIM_FIT, SHIM_IMAGE, SHIM_IMAGE_REPLY, type ShimPost } from "../protocol";

/**
 * Starts the app's own side panels closed. They (NODE INFO, ATTRIBUTES; GRAPH INFO in a split pane)
 * take 370 px of each pane and show what the widget's inspector shows. Each panel's own hide toggle is
 * clicked once, as soon as it appears (before the graph's first fit), so the user's toggle still opens
 * it, and a panel the user opened stays open: after the user's first press on a toggle nothing is closed
 * any more (the app may render a panel element again after it, which was then closed under the user's
 * hand). The web app has no setting or query field for this (its config's hideInfoPanel removes the
 * panel for good).
 */
export function closeInfoPanelsAtStart(): void {
  const closedOnce = new WeakSet<Element>();
  const closePanels = () => {
    for (const toggle of document.querySelectorAll<HTMLElement>("info-panel .hide-toggle")) {
      const panel = toggle.closest("info-panel");
      if (!panel || closedOnce.has(panel)) continue;
      closedOnce.add(panel);
      toggle.click();
    }
  };
  const closing = new MutationObserver(closePanels);
  closing.observe(document, { childList: true, subtree: true });
  const userToggled = (event: Event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (!event.isTrusted || !target?.closest("info-panel .hide-toggle")) return;
    closing.disconnect();
    document.removeEventListener("pointerdown", userToggled, true);
  };
  document.addEventListener("pointerdown", userToggled, true);
}

/** A PNG of the graph canvases (both panes of a diff, where they are on screen), for "save image". */
async function graphImage(): Promise<Blob> {
  const canvases = [...document.querySelectorAll<HTMLCanvasElement>("webgl-renderer canvas.main")].filter(
    (canvas) => canvas.width > 0 && canvas.getBoundingClientRect().width > 0,
  );
  if (!canvases.length) throw new Error("no graph is drawn yet");
  const rects = canvases.map((canvas) => canvas.getBoundingClientRect());
  const left = Math.min(...rects.map((rect) => rect.left));
  const top = Math.min(...rects.map((rect) => rect.top));
  const scale = canvases[0].width / rects[0].width; // the device pixel ratio the app draws at
  const out = document.createElement("canvas");
  out.width = Math.round((Math.max(...rects.map((rect) => rect.right)) - left) * scale);
  out.height = Math.round((Math.max(...rects.map((rect) => rect.bottom)) - top) * scale);
  const context = out.getContext("2d")!;
  context.fillStyle = getComputedStyle(document.body).backgroundColor || "#fff";
  context.fillRect(0, 0, out.width, out.height);
  canvases.forEach((canvas, i) => {
    const rect = rects[i];
    context.drawImage(canvas, (rect.left - left) * scale, (rect.top - top) * scale, rect.width * scale, rect.height * scale);
  });
  return new Promise((resolve, reject) =>
    out.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("the browser made no PNG"))), "image/png"),
  );
}

/**
 * Answers the widget's layout: fits the graph when the frame changes size for good (SHIM_FIT: maximize,
 * restore), answers SHIM_IMAGE with the graph's PNG, and passes Escape to the page (SHIM_ESCAPE), which
 * restores a maximized widget. `trusted` is the message guard's test.
 */
export function answerLayoutCommands(post: ShimPost, trusted: (event: Event) => boolean): void {
  window.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as { cmd?: string; id?: number } | undefined;
    if (event.source !== window.parent || !trusted(event) || !data) return;
    if (data.cmd === SHIM_FIT) {
      // The app's own fit: its space-key shortcut (the selected pane of a diff).
      document.dispatchEvent(new KeyboardEvent("keydown", { key: " ", code: "Space", bubbles: true }));
    } else if (data.cmd === SHIM_IMAGE) {
      graphImage().then(
        (blob) => post({ cmd: SHIM_IMAGE_REPLY, id: data.id, blob }),
        (error: unknown) => post({ cmd: SHIM_IMAGE_REPLY, id: data.id, blob: null, error: String(error) }),
      );
    }
  });
  forwardEscape(() => post({ cmd: SHIM_ESCAPE }));
}
