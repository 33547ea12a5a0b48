// The explore view (tlw.explore): one graph, its overlay control, one inspector beside it.
import type { TraitsModel } from "./traits";
import type { ViewKind } from "./view-kind";
import { InspectorPanel } from "../inspector/inspector";

export const exploreView: ViewKind = {
  attachInspectors(view) {
    const panel = new InspectorPanel();
    view.attachSide(panel.root);
    return [panel];
  },
  selectedText: (model: TraitsModel) => model.get("selected_label") ?? "",
  comparison: (model) => model.get("baseline_summary")?.line,
  inspectLabels: (model) => [model.get("selected_label") ?? ""],
  missingLabel: () => null,
  chips: () => [],
  sideResizable: true,
  lineagePanels: [0],
  switchesViewer: true,
  contexts: 1,
  // One pane; with no overlay the graph brings no node data. (An overlay set meanwhile comes with a
  // new graph revision, which draws a new frame.)
  takesParkedApp: (model) => !model.get("overlay"),
};
