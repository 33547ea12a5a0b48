// anywidget entry: one Explorer view = chrome + a viewer frame, wired to the kernel model.
import type { Render } from "@anywidget/types";
import { assetTransfers, getAssets } from "./assets";
import { gunzipText } from "./bytes";
import { KernelChannel } from "./channel";
import { ModelExplorerFrame } from "./model-explorer/bridge";
import { WidgetView } from "./view";

export interface ExplorerModel {
  viewer: string;
  overlay: string;
  height: number;
  selected_node: string;
  selected_label: string;
  status: string;
  error: string;
  _asset_key: string;
  _graph_rev: number;
  _graph_info: { label?: string; graphs?: Record<string, number> };
}

const VIEWER_TITLES: Record<string, string> = { "model-explorer": "Model Explorer" };

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function nodeCount(info: ExplorerModel["_graph_info"]): number {
  const sizes = Object.values(info.graphs ?? {});
  return sizes.length ? sizes[0] : 0;
}

const render: Render<ExplorerModel> = ({ model, el }) => {
  const view = new WidgetView(el, model.get("height"));
  const channel = new KernelChannel(model);
  let frame: ModelExplorerFrame | null = null;
  let disposed = false;

  const report = (status: "loading" | "ready" | "error", error = "") => {
    model.set("status", status);
    model.set("error", error);
    model.save_changes();
  };
  const fail = (error: unknown) => {
    if (disposed) return;
    const text = describe(error);
    view.showError(text);
    report("error", text);
  };
  const selectionText = () => {
    const label = model.get("selected_label");
    const count = nodeCount(model.get("_graph_info"));
    return label ? `${count} nodes · selected ${label}` : `${count} nodes · click a node to select it`;
  };

  async function show(): Promise<void> {
    const viewer = model.get("viewer");
    view.setTitle(VIEWER_TITLES[viewer] ?? viewer);
    view.clearError();
    report("loading");
    const key = model.get("_asset_key");
    view.setStatus(`Loading ${VIEWER_TITLES[viewer] ?? viewer}…`, "loading");
    const [bundle, graph] = await Promise.all([
      getAssets(key, viewer, channel),
      channel.request<{ label: string }>("graph"),
    ]);
    if (disposed) return;
    const graphJson = await gunzipText(graph.buffers[0]);
    view.setStatus(`Laying out ${nodeCount(model.get("_graph_info"))} nodes…`, "loading");
    frame?.dispose();
    const started = performance.now();
    frame = new ModelExplorerFrame(view.body, {
      bundle,
      graphJson,
      label: graph.result.label,
      onSelect: (nodeId) => {
        model.set("selected_node", nodeId);
        model.save_changes();
      },
    });
    const current = frame;
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => {
        const reasons = current.startupErrors.length ? `\nThe viewer reported: ${current.startupErrors.join("; ")}` : "";
        reject(new Error(`Model Explorer did not draw the graph within 90 s (it needs WebGL in this browser).${reasons}`));
      }, 90_000),
    );
    const frameMs = await Promise.race([current.rendered, timeout]);
    if (disposed || frame !== current) return;
    const selected = model.get("selected_node");
    if (selected) current.select(selected);
    view.setStatus(selectionText(), "ready");
    el.dataset.renderMs = String(Math.round(performance.now() - started));
    el.dataset.frameMs = String(Math.round(frameMs));
    el.dataset.assetRequests = String(assetTransfers().requests);
    report("ready");
  }

  const onSelectedNode = () => {
    frame?.select(model.get("selected_node"));
  };
  const onSelectedLabel = () => {
    if (model.get("status") === "ready") view.setStatus(selectionText(), "ready");
  };
  const onHeight = () => view.setHeight(model.get("height"));
  const onGraph = () => show().catch(fail);
  model.on("change:selected_node", onSelectedNode);
  model.on("change:selected_label", onSelectedLabel);
  model.on("change:height", onHeight);
  model.on("change:_graph_rev", onGraph);
  show().catch(fail);

  return () => {
    disposed = true;
    model.off("change:selected_node", onSelectedNode);
    model.off("change:selected_label", onSelectedLabel);
    model.off("change:height", onHeight);
    model.off("change:_graph_rev", onGraph);
    channel.dispose();
    frame?.dispose();
  };
};

export default { render };
