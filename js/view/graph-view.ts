// A widget's view, explore or diff: chrome + a viewer frame + inspectors, wired to the kernel model.
// What differs between the two views is a ViewKind (js/view/view-kind.ts). The parts with state of their
// own: the drawing (js/view/graph-drawing.ts), the inspectors (js/inspector/inspection.ts), the debug buttons
// (js/inspector/debug-buttons.ts), the inspector layout (js/inspector/layout-traits.ts) and the toolbar
// (js/view/toolbar-traits.ts); this file wires them to the model's events and closes them together.
import { KernelChannel } from "../kernel/channel";
import { DebugButtons } from "../inspector/debug-buttons";
import { GraphDrawing } from "./graph-drawing";
import { giveFocusBack } from "./host-focus";
import { bufferEncodingFor } from "../kernel/host-transport";
import { Inspection } from "../inspector/inspection";
import { kernelBusy, lossMessage, watchKernel, type KernelLoss } from "../kernel/kernel-watch";
import { bindLayout } from "../inspector/layout-traits";
import { bindRunScrubber } from "../comparing/run-scrubber";
import { restoredWithoutKernel } from "./saved-picture";
import { statusLine } from "./status-line";
import { followHostTheme } from "./theme";
import { highlightRoles } from "../kernel/protocol";
import { bindTimeline } from "../memory/timeline-traits";
import { askOverlaysAheadWhenNear, bindToolbar } from "./toolbar-traits";
import { isRecording } from "../kernel/offline";
import { listen, type TraitsModel } from "./traits";
import { WidgetView } from "./view";
import type { ViewKind } from "./view-kind";
import { errorText } from "../shared/error-text";
import type { ViewLife } from "./view-life";

export type { TraitsModel } from "./traits";
export type { ViewKind } from "./view-kind";

/** Draws a widget's view in `el` and keeps it in step with the model; returns what closes it. */
export function mountGraphView(model: TraitsModel, el: HTMLElement, kind: ViewKind): () => void {
  const life: ViewLife = { disposed: false, lost: null };
  const view = new WidgetView(el, model.get("height"));
  const stopTheme = followHostTheme(view.root); // the viewer frames inherit the root's color-scheme
  const channel = new KernelChannel(model, () => kernelBusy(model.widget_manager), bufferEncodingFor(model.widget_manager), {
    onEncoding: (encoding) => {
      el.dataset.bufferEncoding = encoding;
    },
    // Colours sent ahead of their `_colour_rev` are painted as they land (`drawing` exists by then).
    onAhead: (method) => {
      if (method === "colours") drawing.recolour();
    },
    // A draw waiting for a reply that does not come says so, with the remedy (see channel.ts).
    onSilence: (text) => {
      if (model.get("status") === "loading") view.setStatus(text, "loading");
    },
  });
  el.dataset.bufferEncoding = channel.encoding;
  const inspection = new Inspection(model, kind, channel, kind.attachInspectors(view, model), life);
  const statusText = (answerNow?: string) => statusLine(model, kind, answerNow);
  const refreshStatus = () => {
    if (model.get("status") === "ready") view.setStatus(statusText(), "ready");
  };
  const onSelect = (nodeId: string) => {
    if (life.lost) return; // the viewer still highlights the node; there is no kernel to tell
    model.set("selected_node", nodeId);
    model.save_changes();
  };
  const layout = bindLayout(model, view, kind, () => drawing.current?.fit());
  const drawing = new GraphDrawing(el, model, view, channel, kind, life, {
    onSelect,
    onEscape: () => {
      giveFocusBack(view.root); // Escape leaves the viewer: the notebook's keys work again
      layout.restore();
    },
    statusText: () => statusText(),
  });
  view.onActions({
    saveImage: (format) => {
      const current = drawing.current;
      const known = current?.imageFormats.find((offered) => offered === format);
      if (!current || !known) return; // the buttons follow the frame; a click may race a redraw
      view.setNotice("");
      current.saveImage(known).catch((error) => view.setNotice(`The image was not saved: ${errorText(error)}`));
    },
    toggleMaximized: () => layout.toggleMaximized(),
    // A saved page's recording holds one viewer's assets and graph: it cannot switch.
    switchViewer:
      kind.switchesViewer && !isRecording(model)
        ? (viewer) => {
            model.set("viewer", viewer);
            model.save_changes();
          }
        : undefined,
  });
  // The ops a panel names (the tensors alive at an op) select as a click on the graph does.
  for (const panel of inspection.panels) panel.setSelectHandler(onSelect);
  // A comparison's runs in the inspector: a click on one shows it, as the scrubber does.
  const onRun = (run: string) => {
    if (life.lost) return;
    model.set("run", run);
    model.save_changes();
  };
  const comparing = (model.get("runs") ?? []).length > 1;
  for (const panel of inspection.panels) panel.setRunHandler(comparing ? onRun : null);
  // The memory strip under the graph: a click on it selects as a click in the graph does.
  const timeline = bindTimeline(model, view, channel, life, onSelect);
  const debugButtons = new DebugButtons(model, view, channel, life, statusText);
  debugButtons.offerLineage(kind, inspection);
  debugButtons.refresh();

  const onSelectedNode = () => {
    drawing.current?.select(model.get("selected_node"));
    drawing.pictureSoon();
  };
  const onSelectedLabel = () => {
    refreshStatus();
    void inspection.refresh();
  };
  // The run shown is marked in the inspector's runs; their values do not change with it.
  const onShownRun = () => {
    for (const panel of inspection.panels) panel.markShownRun(model.get("run") ?? "");
  };
  const onHighlight = () => {
    const marked = drawing.current?.highlight(model.get("_highlight_nodes") ?? [], highlightRoles(model.get("_highlight_roles")));
    // When the viewer says its marks are painted (Model Explorer): what benchmarks read of a highlight.
    void marked?.then(() => {
      el.dataset.markedAt = String(Date.now());
    });
    refreshStatus();
  };
  const stopToolbar = bindToolbar(model, view, kind, onSelect);
  askOverlaysAheadWhenNear(model, view, channel, life);
  // A comparison's runs: the scrubber (a row under the toolbar) sets `run`, and the kernel recolours the graph in place.
  const stopScrubber = bindRunScrubber(model, (control) => view.attachRow(control), life);
  // Every model event this view listens to, so that closing the view removes exactly these.
  const stopListening = listen(model, [
    ["change:selected_node", onSelectedNode],
    ["change:selected_label", onSelectedLabel],
    ["change:selected_labels", onSelectedLabel],
    ["change:baseline_summary", refreshStatus],
    // The kernel says the selection's facts changed (a baseline set, changed or cleared): ask again,
    // once the graph shows the change that came with it.
    ["change:_inspect_rev", () => drawing.afterRecolour(() => void inspection.refresh())],
    ["change:height", () => view.setHeight(model.get("height"))],
    ["change:_graph_rev", () => drawing.redraw()],
    ["change:_colour_rev", () => drawing.recolour()],
    ["change:_debug_questions", () => debugButtons.refresh()],
    ["change:debug_status", refreshStatus],
    ["change:_memory_line", refreshStatus],
    ["change:highlighted", refreshStatus],
    ["change:run", onShownRun],
    ["change:_highlight_nodes", onHighlight],
    ["change:_highlight_roles", onHighlight],
  ]);
  const onKernelLost = (why: KernelLoss) => {
    if (life.disposed) return;
    life.lost = why;
    drawing.kernelLost();
    const text = lossMessage(why);
    channel.close(text);
    view.setDisconnected(text); // the graph and the inspector keep what they show
  };
  const onConnection = (connected: boolean) => {
    if (life.disposed || life.lost) return;
    if (!connected) view.setStatus("Connection to the kernel lost; reconnecting…", "loading");
    else refreshStatus();
  };
  const stopWatching = watchKernel(model.widget_manager, onKernelLost, onConnection);
  void restoredWithoutKernel(model).then((restored) => {
    if (life.disposed) return;
    if (restored) {
      life.lost = "restored"; // nothing may ask the kernel or report to it
      drawing.showSavedPicture();
      inspection.showMessage("The inspector asks the kernel: run this cell to use it.");
      return;
    }
    void drawing.show();
    void inspection.refresh(); // a re-rendered view of a widget that already has a selection
    void timeline.refresh();
  });

  return () => {
    life.disposed = true;
    stopWatching();
    stopTheme();
    drawing.dispose();
    inspection.dispose();
    layout.dispose();
    timeline.dispose();
    stopListening();
    stopToolbar();
    stopScrubber();
    channel.dispose();
  };
}
