// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { lossMessage } from "../../../js/kernel/kernel-watch";
import { PICTURE_MAX_CHARS } from "../../../js/kernel/protocol";
import {
  FINGERPRINT_SIDE,
  MEANINGFUL_SHARE,
  type PictureCodec,
  pictureKeeper,
  restoredWithoutKernel,
  smallestFitting,
} from "../../../js/view/saved-picture";

/** ipywidgets' model as the manager holds it: attributes, and a comm when a kernel holds it. */
function managed(layout: object, comm: unknown) {
  const attributes: Record<string, unknown> = { layout };
  return { get: (name: string) => attributes[name], comm, comm_live: comm !== undefined };
}

/** The page's widget manager with these models, and anywidget's view model of `ours`. */
function page(ours: ReturnType<typeof managed>, others: ReturnType<typeof managed>[] = []) {
  const models = Object.fromEntries([...others, ours].map((model, i) => [`id${i}`, Promise.resolve(model)]));
  return { get: ours.get, widget_manager: { _models: models } };
}

describe("restoredWithoutKernel", () => {
  it("is true for a model restored from a saved notebook (no comm)", async () => {
    const ours = managed({}, undefined);
    expect(await restoredWithoutKernel(page(ours, [managed({}, {})]))).toBe(true);
  });

  it("is false for a model a kernel holds, whatever the other models are", async () => {
    const ours = managed({}, { send() {} });
    expect(await restoredWithoutKernel(page(ours, [managed({}, undefined)]))).toBe(false);
  });

  it("does not know on a host without ipywidgets' manager (marimo, a saved page)", async () => {
    const ours = managed({}, undefined);
    expect(await restoredWithoutKernel({ get: ours.get, widget_manager: undefined })).toBeNull();
    expect(await restoredWithoutKernel({ get: () => undefined, widget_manager: { _models: {} } })).toBeNull();
  });

  it("skips models that failed to load", async () => {
    const ours = managed({}, undefined);
    const models = { broken: Promise.reject(new Error("gone")), ours: Promise.resolve(ours) };
    expect(await restoredWithoutKernel({ get: ours.get, widget_manager: { _models: models } })).toBe(true);
  });

  it("finds its model while another model is still loading", async () => {
    const ours = managed({}, undefined);
    const models = { loading: new Promise<never>(() => {}), ours: Promise.resolve(ours) };
    expect(await restoredWithoutKernel({ get: ours.get, widget_manager: { _models: models } })).toBe(true);
  });

  it("tells the user how to get the live view back", () => {
    expect(lossMessage("restored")).toMatch(/^Run this cell for the live view/);
  });
});

/** A picture the fake viewer draws: its encoded URL and its coarse look (all cells one grey unless told). */
function drawing(name: string, grey = 200, changedCells = 0) {
  const fingerprint = new Uint8Array(FINGERPRINT_SIDE * FINGERPRINT_SIDE).fill(grey);
  fingerprint.fill(0, 0, changedCells); // e.g. the selection's highlight on a few cells
  return { url: `data:image/webp;base64,${name}`, fingerprint };
}
type Drawing = ReturnType<typeof drawing>;

/** A codec that "encodes" each drawn blob as the drawing it stands for. */
function fakeCodec() {
  const drawings = new Map<Blob, Drawing>();
  const codec: PictureCodec = {
    encode: async (png) => drawings.get(png) ?? null,
    fingerprint: async (url) => [...drawings.values()].find((d) => d.url === url)?.fingerprint ?? new Uint8Array(),
  };
  return {
    codec,
    blobOf: (d: Drawing) => {
      const blob = new Blob([d.url]);
      drawings.set(blob, d);
      return blob;
    },
  };
}

/** One view of a widget whose `_picture` is `state.picture`: what it shows now is `view.showing`. */
function fakeView(state: { picture: string; layout: object }, blobOf: (d: Drawing) => Blob) {
  const sent: string[] = [];
  const view = {
    showing: null as Drawing | null,
    sent,
    source: {
      widget: { get: (name: string) => (name === "layout" ? state.layout : undefined) },
      take: () => (view.showing ? { png: Promise.resolve(blobOf(view.showing)), current: () => true } : null),
      kept: () => state.picture,
      keep: (picture: string) => {
        state.picture = picture;
        sent.push(picture);
      },
    },
  };
  return view;
}

describe("pictureKeeper", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());
  const settle = () => vi.advanceTimersByTimeAsync(2000);

  it("sends a picture after a draw, and not again while it is the same", async () => {
    const { codec, blobOf } = fakeCodec();
    const view = fakeView({ picture: "", layout: {} }, blobOf);
    const keeper = pictureKeeper(view.source, codec);
    view.showing = drawing("graph");
    keeper.soon();
    await settle();
    keeper.soon(); // a redraw of the same graph
    await settle();
    expect(view.sent).toEqual([drawing("graph").url]);
    keeper.dispose();
  });

  it("does not re-send for a selection's highlight, only for a change a reader would see", async () => {
    const { codec, blobOf } = fakeCodec();
    const view = fakeView({ picture: "", layout: {} }, blobOf);
    const keeper = pictureKeeper(view.source, codec);
    const cells = FINGERPRINT_SIDE * FINGERPRINT_SIDE;
    view.showing = drawing("graph");
    keeper.soon();
    await settle();
    view.showing = drawing("graph-selected", 200, Math.floor(cells * MEANINGFUL_SHARE) - 1); // one box lit
    keeper.soon();
    await settle();
    expect(view.sent).toEqual([drawing("graph").url]);
    view.showing = drawing("graph-scrolled", 200, Math.ceil(cells * 0.3)); // centred elsewhere
    keeper.soon();
    await settle();
    expect(view.sent).toEqual([drawing("graph").url, drawing("graph-scrolled").url]);
    keeper.dispose();
  });

  it("compares with a picture another client kept, not only its own", async () => {
    const { codec, blobOf } = fakeCodec();
    const theirs = drawing("theirs");
    blobOf(theirs); // the codec can read it back
    const view = fakeView({ picture: theirs.url, layout: {} }, blobOf);
    const keeper = pictureKeeper(view.source, codec);
    view.showing = drawing("ours", 200, 3); // the same graph, a highlight apart
    keeper.soon();
    await settle();
    expect(view.sent).toEqual([]);
    keeper.dispose();
  });

  it("keeps one picture per widget: only the first view that drew writes it, until it closes", async () => {
    const { codec, blobOf } = fakeCodec();
    const state = { picture: "", layout: {} }; // one widget, displayed twice
    const first = fakeView(state, blobOf);
    const second = fakeView(state, blobOf);
    const firstKeeper = pictureKeeper(first.source, codec);
    const secondKeeper = pictureKeeper(second.source, codec);
    first.showing = drawing("wide", 100);
    second.showing = drawing("narrow", 250);
    firstKeeper.soon();
    secondKeeper.soon();
    await settle();
    expect([first.sent, second.sent]).toEqual([[drawing("wide", 100).url], []]);
    firstKeeper.dispose(); // its cell's output was cleared: the other view keeps the picture now
    secondKeeper.soon();
    await settle();
    expect(second.sent).toEqual([drawing("narrow", 250).url]);
    secondKeeper.dispose();
  });

  it("leaves another widget's picture to that widget's views", async () => {
    const { codec, blobOf } = fakeCodec();
    const one = fakeView({ picture: "", layout: {} }, blobOf);
    const other = fakeView({ picture: "", layout: {} }, blobOf);
    const keepers = [pictureKeeper(one.source, codec), pictureKeeper(other.source, codec)];
    one.showing = drawing("a");
    other.showing = drawing("b");
    for (const keeper of keepers) keeper.soon();
    await settle();
    expect([one.sent, other.sent]).toEqual([[drawing("a").url], [drawing("b").url]]);
    for (const keeper of keepers) keeper.dispose();
  });
});

describe("smallestFitting (the picture's size cap)", () => {
  const url = (prefix: string, length: number) => prefix + "A".repeat(length - prefix.length);
  const WEBP = "data:image/webp;base64,";
  const PNG = "data:image/png;base64,";

  it("keeps the shorter of WebP and PNG at full scale when it fits", () => {
    const picked = smallestFitting(() => (type) => (type === "image/webp" ? url(WEBP, 9_000) : url(PNG, 12_000)), 1);
    expect(picked).toBe(url(WEBP, 9_000));
  });

  it("shrinks the raster until a picture fits in PICTURE_MAX_CHARS", () => {
    const scales: number[] = [];
    // Encoded length grows with the area; at full scale it is 3x the cap.
    const picked = smallestFitting((scale) => {
      scales.push(scale);
      return (type) => url(type === "image/webp" ? WEBP : PNG, Math.round(3 * PICTURE_MAX_CHARS * scale * scale));
    }, 1);
    expect(picked).not.toBeNull();
    expect(picked!.length).toBeLessThanOrEqual(PICTURE_MAX_CHARS);
    expect(scales.length).toBeGreaterThan(1);
    expect(PICTURE_MAX_CHARS).toBe(40_000);
  });

  it("takes the PNG a browser without WebP answers, and never another format", () => {
    // toDataURL("image/webp") gives a PNG where the browser cannot encode WebP.
    expect(smallestFitting(() => () => url(PNG, 5_000), 1)).toBe(url(PNG, 5_000));
    expect(smallestFitting(() => () => url("data:image/jpeg;base64,", 5_000), 1)).toBeNull();
  });

  it("gives up when nothing fits even small", () => {
    expect(smallestFitting(() => () => url(PNG, PICTURE_MAX_CHARS + 1), 1)).toBeNull();
  });
});
