// anywidget entry: a widget's view (explore or diff) on the kernel model, or on a saved recording.
import type { AnyModel, Render } from "@anywidget/types";
import { diffView } from "./view/diff-view";
import { exploreView } from "./view/explore-view";
import { mountGraphView } from "./view/graph-view";
import { ReplayModel, type Recording } from "./kernel/offline";
import type { WidgetTraits } from "./view/traits";

const render: Render<WidgetTraits> = ({ model, el }) => mountGraphView(model, el, model.get("_kind") === "diff" ? diffView : exploreView);

export default { render };

/** Draws a widget saved by `w.save_html()` from its recording: the same view, no kernel. */
export function renderRecording(el: HTMLElement, recording: Recording): void {
  const model = new ReplayModel(recording) as unknown as AnyModel<WidgetTraits>;
  void render({ model, el } as Parameters<typeof render>[0]);
}
