// The picture of the graph a notebook keeps in its saved widget state, and when to show it.
//
// A host that saves widget state (JupyterLab's and Notebook 7's "save widget state" setting) brings
// the widget's model back when the notebook is reopened, but no kernel is behind it until its cell
// runs again: the view would wait for assets and a graph nobody sends. It shows the picture of the
// graph as last drawn instead (a small WebP or PNG one view kept in the `_picture` trait) and says how to
// get the live view back.
import { errorText } from "../shared/error-text";
import { PICTURE_MAX_CHARS, PICTURE_PREFIXES } from "../kernel/protocol";

/** How long after a draw or a selection a view waits to keep its picture (the viewer may be centring). */
const PICTURE_DELAY_MS = 1500;

/**
 * The widest picture kept, in pixels: node boxes and their labels still read at this width (looked at
 * for a transformer's graph), and it stays within PICTURE_MAX_CHARS for 22 widgets of a notebook.
 */
export const PICTURE_WIDTH = 800;

/** WebP's quality: text on node boxes stays sharp, and the picture is half a PNG's size or less. */
const WEBP_QUALITY = 0.8;

/** Each smaller try is this much narrower. */
const SHRINK = 1.4;

/** A canvas' `toDataURL`: the raster at one scale, encoded as `type`. */
export type Encode = (type: string, quality?: number) => string;

/**
 * The shortest of WebP and PNG of the raster at the largest scale (from `scale` down) that fits in
 * PICTURE_MAX_CHARS; null if none does. A browser that cannot encode WebP answers a PNG (its prefix
 * says so), which is then one candidate among equals.
 */
export function smallestFitting(render: (scale: number) => Encode | null, scale: number): string | null {
  for (let attempt = 0; attempt < 5; attempt++, scale /= SHRINK) {
    const encode = render(scale);
    if (!encode) return null;
    const fitting = [encode("image/webp", WEBP_QUALITY), encode("image/png")].filter(
      (url) => PICTURE_PREFIXES.some((prefix) => url.startsWith(prefix)) && url.length <= PICTURE_MAX_CHARS,
    );
    if (fitting.length) return fitting.reduce((best, url) => (url.length < best.length ? url : best));
  }
  return null;
}

/** A picture's coarse look: FINGERPRINT_SIDE² grey levels, compared to tell a real change from a highlight. */
export type Fingerprint = Uint8Array;
export const FINGERPRINT_SIDE = 48;
/** A cell has changed when its grey level moved more than this (of 255). */
const CELL_CHANGE = 32;
/**
 * A picture has changed meaningfully when more than this share of its cells has: a scroll, a zoom, an
 * overlay's colours, a resize do; a selection's highlight on one node box of the view (well under 1%
 * of its area) or a hover does not.
 */
export const MEANINGFUL_SHARE = 0.02;

/** Whether `next` shows something else than `before` (not just the selection's highlight moving). */
export function changedMeaningfully(before: Fingerprint, next: Fingerprint): boolean {
  if (before.length !== next.length) return true;
  let changed = 0;
  for (let i = 0; i < next.length; i++) if (Math.abs(next[i] - before[i]) > CELL_CHANGE) changed++;
  return changed > MEANINGFUL_SHARE * next.length;
}

/** How pictures are encoded and compared (the browser's canvas; a stand-in in unit tests). */
export interface PictureCodec {
  /** `png` (the viewer's image) as a data: URL within PICTURE_MAX_CHARS and its fingerprint; null if it cannot fit. */
  encode(png: Blob): Promise<{ url: string; fingerprint: Fingerprint } | null>;
  /** The fingerprint of a kept picture (one another view or client kept). */
  fingerprint(url: string): Promise<Fingerprint>;
}

function fingerprintOf(image: CanvasImageSource): Fingerprint {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = FINGERPRINT_SIDE;
  const context = canvas.getContext("2d", { willReadFrequently: true });
  if (!context) return new Uint8Array();
  context.drawImage(image, 0, 0, FINGERPRINT_SIDE, FINGERPRINT_SIDE);
  const { data } = context.getImageData(0, 0, FINGERPRINT_SIDE, FINGERPRINT_SIDE);
  const grey = new Uint8Array(FINGERPRINT_SIDE * FINGERPRINT_SIDE);
  for (let i = 0; i < grey.length; i++) grey[i] = (data[4 * i] * 3 + data[4 * i + 1] * 6 + data[4 * i + 2]) / 10;
  return grey;
}

/** The browser's codec: a downscaled canvas, WebP where the browser has it, else PNG. */
export const canvasCodec: PictureCodec = {
  async encode(png) {
    const bitmap = await createImageBitmap(png);
    try {
      const url = smallestFitting(
        (scale) => {
          const canvas = document.createElement("canvas");
          canvas.width = Math.max(1, Math.round(bitmap.width * scale));
          canvas.height = Math.max(1, Math.round(bitmap.height * scale));
          const context = canvas.getContext("2d");
          if (!context) return null;
          context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
          return (type, quality) => canvas.toDataURL(type, quality);
        },
        Math.min(1, PICTURE_WIDTH / bitmap.width),
      );
      return url ? { url, fingerprint: fingerprintOf(bitmap) } : null;
    } finally {
      bitmap.close();
    }
  },
  async fingerprint(url) {
    const bitmap = await createImageBitmap(await (await fetch(url)).blob());
    try {
      return fingerprintOf(bitmap);
    } finally {
      bitmap.close();
    }
  },
};

/** Where a view's picture comes from and goes to. */
export interface PictureSource {
  /** The view's model: the views of one widget keep one picture between them. */
  widget: { get(name: string): unknown };
  /**
   * A PNG of the graph now, and whether it still shows what the view shows (false once another frame
   * replaced it, or the view closed); null when there is nothing to take (no frame, paused, off the page).
   */
  take(): { png: Promise<Blob>; current: () => boolean } | null;
  /** The picture kept so far ("" for none) and how to keep a new one (the widget's `_picture`). */
  kept(): string;
  keep(picture: string): void;
}

/** What the views of one widget on this page share about its picture. */
interface WidgetPicture {
  /** The view that keeps the widget's picture: the first that took one, until it closes. */
  writer: symbol | null;
  /** The picture this page last kept for the widget, and its fingerprint. */
  url: string;
  fingerprint: Fingerprint | null;
}

const widgets = new WeakMap<object, WidgetPicture>();

/**
 * What the views of one widget share: anywidget hands each view a model of its own, but the same
 * Layout object (ipywidgets' hosts; found the same way by restoredWithoutKernel). A host without one
 * (marimo) has its own model per widget.
 */
function widgetPicture(model: { get(name: string): unknown }): WidgetPicture {
  const layout = model.get("layout");
  const widget = layout && typeof layout === "object" ? layout : model;
  const shared = widgets.get(widget) ?? { writer: null, url: "", fingerprint: null };
  widgets.set(widget, shared);
  return shared;
}

/**
 * Keeps a view's picture a moment after each draw or selection (`soon()`; a later call restarts the
 * wait). One view per widget writes it (the first that took a picture, until it closes: two views
 * of a widget would otherwise overwrite each other's), and only a picture that differs meaningfully
 * from the one kept is sent (each is up to PICTURE_MAX_CHARS over the channel, echoed to every
 * client). A failure costs the live view nothing; only a saved notebook would lack the picture, so it
 * is said in the console, not in the widget.
 */
export function pictureKeeper(source: PictureSource, codec: PictureCodec = canvasCodec): { soon(): void; dispose(): void } {
  let timer = 0;
  const me = Symbol("view");
  const shared = widgetPicture(source.widget);
  const keepNow = async () => {
    if (shared.writer !== null && shared.writer !== me) return; // another view of the widget keeps it
    const taken = source.take();
    if (!taken) return;
    shared.writer = me;
    try {
      const picture = await codec.encode(await taken.png);
      if (!picture) throw new Error(`no picture of it fits in ${PICTURE_MAX_CHARS} characters`);
      if (!taken.current()) return;
      const kept = source.kept();
      if (picture.url === kept) return;
      if (kept) {
        const before = kept === shared.url && shared.fingerprint ? shared.fingerprint : await codec.fingerprint(kept);
        if (!changedMeaningfully(before, picture.fingerprint)) return;
      }
      source.keep(picture.url);
      shared.url = picture.url;
      shared.fingerprint = picture.fingerprint;
    } catch (error) {
      console.warn(`torchlens-widgets: no picture of the graph was kept: ${errorText(error)}`);
    }
  };
  return {
    soon() {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => void keepNow(), PICTURE_DELAY_MS);
    },
    dispose() {
      window.clearTimeout(timer);
      if (shared.writer === me) shared.writer = null; // the next view that draws keeps it
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
