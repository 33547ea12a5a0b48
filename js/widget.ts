// anywidget entry: a widget's view (explore or diff) on the kernel model, or on a saved recording.
import type { AnyModel, Render } from "@anywidget/types";
import { diffView } from "./diff-view";
import { exploreView } from "./explore-view";
import { mountGraphView } from "./graph-view";
import { ReplayModel, type Recording } from "./offline";
import type { WidgetTraits } from "./traits";

const render: Render<WidgetTraits> = ({ model, el }) => mountGraphView(model, el, model.get("_kind") === "diff" ? diffView : exploreView);

export default { render };

/** Draws a widget saved by `w.save_html()` from its recording: the same view, no kernel. */
export function renderRecording(el: HTMLElement, recording: Recording): void {
  const model = new ReplayModel(recording) as unknown as AnyModel<WidgetTraits>;
  void render({ model, el } as Parameters<typeof render>[0]);
}
