// The picture of the graph a notebook keeps in its saved widget state, and when to show it.
//
// A host that saves widget state (JupyterLab's and Notebook 7's "save widget state" setting) brings
// the widget's model back when the notebook is reopened, but no kernel is behind it until its cell
// runs again: the view would wait for assets and a graph nobody sends. It shows the picture of the
// graph as last drawn instead (a downscaled PNG the view kept in the `_picture` trait) and says how to
// get the live view back.
import { PICTURE_MAX_CHARS, PICTURE_PREFIX } from "./protocol";

/** How long after a draw or a selection a view waits to keep its picture (the viewer may be centring). */
const PICTURE_DELAY_MS = 1500;

/** The widest picture kept, in CSS pixels: enough to read a cell's graph, small in a saved notebook. */
const PICTURE_WIDTH = 960;

/** `blob` (a PNG of the viewer) as a data: URL within PICTURE_MAX_CHARS, downscaled as needed; null if it cannot fit. */
export async function encodePicture(blob: Blob): Promise<string | null> {
  const bitmap = await createImageBitmap(blob);
  try {
    let scale = Math.min(1, PICTURE_WIDTH / bitmap.width);
    for (let attempt = 0; attempt < 4; attempt++, scale /= 1.6) {
      const canvas = document.createElement("canvas");
      canvas.width = Math.max(1, Math.round(bitmap.width * scale));
      canvas.height = Math.max(1, Math.round(bitmap.height * scale));
      const context = canvas.getContext("2d");
      if (!context) return null;
      context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      const url = canvas.toDataURL("image/png");
      if (url.startsWith(PICTURE_PREFIX) && url.length <= PICTURE_MAX_CHARS) return url;
    }
    return null;
  } finally {
    bitmap.close();
  }
}

/** Where a view's picture comes from and goes to. */
export interface PictureSource {
  /**
   * A PNG of the graph now, and whether it still shows what the view shows (false once another frame
   * replaced it, or the view closed); null when there is nothing to take (no frame, paused, off the page).
   */
  take(): { png: Promise<Blob>; current: () => boolean } | null;
  /** The picture kept so far ("" for none) and how to keep a new one (the widget's `_picture`). */
  kept(): string;
  keep(picture: string): void;
}

/**
 * Keeps a view's picture a moment after each draw or selection (`soon()`; a later call restarts the
 * wait). A failure costs the live view nothing; only a saved notebook would lack the picture, so it is
 * said in the console, not in the widget.
 */
export function pictureKeeper(source: PictureSource): { soon(): void; dispose(): void } {
  let timer = 0;
  const keepNow = async () => {
    const taken = source.take();
    if (!taken) return;
    try {
      const picture = await encodePicture(await taken.png);
      if (!picture) throw new Error(`no PNG of it fits in ${PICTURE_MAX_CHARS} characters`);
      if (taken.current() && picture !== source.kept()) source.keep(picture);
    } catch (error) {
      console.warn(`torchlens-widgets: no picture of the graph was kept: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  return {
    soon() {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => void keepNow(), PICTURE_DELAY_MS);
    },
    dispose() {
      window.clearTimeout(timer);
    },
  };
}

/** What this needs of the model anywidget hands the view. */
interface ViewModel {
  get(name: string): unknown;
  widget_manager: unknown;
}

/** ipywidgets' model behind anywidget's view model, as far as this reads it. */
interface ManagedModel {
  get(name: string): unknown;
  comm?: unknown;
  comm_live?: boolean;
}

/**
 * True when the model was restored from a saved notebook and no kernel holds it (no comm): nothing
 * will answer this view. False when it has a comm; null when the host does not say (marimo, a saved
 * page). anywidget hides ipywidgets' model, so it is found in the manager by its own Layout object.
 */
export async function restoredWithoutKernel(model: ViewModel): Promise<boolean | null> {
  const manager = model.widget_manager as { _models?: Record<string, Promise<ManagedModel>> } | null | undefined;
  const layout = model.get("layout");
  if (!manager?._models || !layout || typeof layout !== "object") return null;
  // Looked for in all models at once: another widget's model still loading (or never) delays nothing.
  const ours = Object.values(manager._models).map((pending) =>
    pending.then((candidate) => {
      if (candidate && typeof candidate.get === "function" && candidate.get("layout") === layout) return candidate;
      throw new Error("not this view's model");
    }),
  );
  const found = await Promise.any(ours).catch(() => null);
  return found ? found.comm === undefined && found.comm_live === false : null;
}
