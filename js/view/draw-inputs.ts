// What a view needs from the kernel before it can draw: the viewer's assets (by key) and the graph.
//
// A view asks only once the kernel has said which assets and which graph revision to show. In
// JupyterLab those traits are in the model before any view renders; VS Code renders an output by a
// path separate from the kernel messages, so a view can start before they arrive. Asking then would
// download under an empty key and again once the key arrives; instead the view says it is waiting,
// with the same time-out as a draw (counted while it is displayed and the kernel is idle).
import { getAssets, type AssetBundle } from "../kernel/assets";
import type { KernelChannel } from "../kernel/channel";
import { pausableDeadline } from "../shared/deadline";
import { parseGraphReply, parseViewer, type GraphReply, type Viewer } from "../kernel/protocol";

/** The model surface this needs (anywidget's model, or a test's stand-in). */
export interface TraitModel {
  get(name: string): unknown;
  on(event: string, callback: () => void): void;
  off(event: string, callback: () => void): void;
}

/** A graph reply, checked, with its buffers (gzip). */
export interface Graph {
  reply: GraphReply;
  buffers: DataView[];
}

export interface DrawInputs {
  viewer: Viewer;
  bundle: AssetBundle;
  /** Still on its way when the assets are here: a viewer can boot meanwhile and take it when it lands. */
  graph: Promise<Graph>;
}

export interface DrawInputOptions {
  /** Called once if the view has to wait for the kernel's traits (to say so in the status line). */
  onWaiting: () => void;
  /** Called when it asks for `viewer`'s assets and the graph. */
  onLoading: (viewer: Viewer) => void;
  /** Whether waiting time counts towards `budgetMs` now (displayed, kernel idle). */
  counting: () => boolean;
  budgetMs: number;
}

const KEY_TRAITS = ["_asset_key", "_graph_rev"] as const;

/** True once the kernel has set which asset bundle and which graph revision this widget shows. */
export function kernelTraitsKnown(model: TraitModel): boolean {
  return Boolean(model.get("_asset_key")) && Number(model.get("_graph_rev") ?? 0) > 0;
}

function traitsArrive(model: TraitModel): { arrived: Promise<void>; stop: () => void } {
  let check = () => {};
  const arrived = new Promise<void>((resolve) => {
    check = () => {
      if (kernelTraitsKnown(model)) resolve();
    };
    for (const name of KEY_TRAITS) model.on(`change:${name}`, check);
  });
  const stop = () => {
    for (const name of KEY_TRAITS) model.off(`change:${name}`, check);
  };
  return { arrived, stop };
}

/**
 * Waits for the kernel's traits if need be, then asks for the assets (by key) and the graph at once;
 * resolves when the assets are here (cached on the page after the first widget), the graph pending.
 */
export async function fetchDrawInputs(model: TraitModel, channel: KernelChannel, options: DrawInputOptions): Promise<DrawInputs> {
  if (!kernelTraitsKnown(model)) {
    options.onWaiting();
    const { arrived, stop } = traitsArrive(model);
    const timeout = () =>
      new Error(
        `The kernel did not say which graph to show within ${Math.round(options.budgetMs / 1000)} s. Is it still running? Re-run the cell.`,
      );
    try {
      await pausableDeadline(arrived, options.counting, timeout, options.budgetMs);
    } finally {
      stop();
    }
  }
  const viewer = parseViewer(model.get("viewer"));
  options.onLoading(viewer);
  const assets = getAssets(String(model.get("_asset_key")), channel);
  const graph = channel
    .request("graph")
    .then(({ result, buffers }): Graph => ({ reply: parseGraphReply(viewer, result, buffers.length), buffers }));
  graph.catch(() => undefined); // its failure reaches whoever awaits it (the draw), not the console
  return { viewer, bundle: await assets, graph };
}
