// Inside the Model Explorer frame: when a change made in place (shim-recolour.ts, shim-marks.ts) is on
// the canvas, read from the graph canvases' pixels.
import { nextPaint } from "../../frame/frame-manners";

/**
 * Paints to wait for a visible change before calling a change done anyway: the new colours may look
 * like the old on what is on screen (a few collapsed layers). The app computes them as the change is made
 * and paints them in one of its next two frames (measured on GPT-2, collapsed and expanded), so a few
 * paints suffice whatever the graph's size: paints are what counts, not time (a frame of a big expanded
 * graph takes a second in software WebGL).
 */
const SETTLE_PAINTS = 4;
const LOOK_SIDE = 64;

/** A small copy of what the graph canvases show (compared to see the new colours painted). */
export function canvasLook(): string {
  const probe = document.createElement("canvas");
  probe.width = probe.height = LOOK_SIDE;
  const context = probe.getContext("2d", { willReadFrequently: true });
  if (!context) return "";
  const canvases = document.querySelectorAll<HTMLCanvasElement>("webgl-renderer canvas.main");
  let sum = "";
  for (const canvas of canvases) {
    if (!canvas.width || !canvas.height) continue;
    context.clearRect(0, 0, LOOK_SIDE, LOOK_SIDE);
    context.drawImage(canvas, 0, 0, LOOK_SIDE, LOOK_SIDE);
    sum += String.fromCharCode(...context.getImageData(0, 0, LOOK_SIDE, LOOK_SIDE).data.filter((_, i) => i % 4 !== 3));
  }
  return sum;
}

/**
 * Resolves once the canvases `look` other than `before` (a canvasLook()), or after SETTLE_PAINTS paints.
 * They are looked at after each paint, and, through `onDraw` (which subscribes a listener to the scene
 * draws of the change and returns its unsubscribe), right after each such draw: the draw's own animation
 * frame, not the one after it. Reading the pixels there waits for the raster of that draw, which a frame
 * of an opened graph spends anyway, and saves a whole frame's wait (one more compositor frame of the page).
 * Paints run only while the frame is on screen: off screen this waits, as a first draw does.
 */
export function repainted(before: string, onDraw: (listener: () => void) => () => void, look = canvasLook): Promise<void> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      stopLooking();
      resolve();
    };
    const lookAgain = () => {
      if (!settled && look() !== before) settle();
    };
    const stopLooking = onDraw(lookAgain);
    void (async () => {
      for (let paint = 0; paint < SETTLE_PAINTS && !settled; paint++) {
        await nextPaint();
        lookAgain();
      }
      settle();
    })();
  });
}
