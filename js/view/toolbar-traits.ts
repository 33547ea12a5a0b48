// The toolbar's controls bound to the model's traits: the overlay choice (its choices grow when the
// kernel adds a custom overlay) and summary, the notice line, and a diff's largest-delta chips.
import { listen, type TraitsModel } from "./traits";
import type { WidgetView } from "./view";
import type { ViewKind } from "./view-kind";

/** `select` selects a node as a click in the viewer does. Returns what stops listening. */
export function bindToolbar(model: TraitsModel, view: WidgetView, kind: ViewKind, select: (nodeId: string) => void): () => void {
  const onOverlay = () => view.setOverlay(model.get("overlay") ?? "", model.get("overlay_summary") ?? "");
  const onNotice = () => view.setNotice(model.get("notice") ?? "");
  const onOverlayChoices = () => {
    view.setOverlayChoices(model.get("_overlay_choices") ?? [], (overlay) => {
      model.set("overlay", overlay); // the kernel answers with a new graph, or a notice and the old value
      model.save_changes();
    });
    onOverlay();
  };
  view.setChips("Largest deltas:", kind.chips(model, select));
  onOverlayChoices();
  onNotice();
  return listen(model, [
    ["change:overlay", onOverlay],
    ["change:overlay_summary", onOverlay],
    ["change:notice", onNotice],
    ["change:_overlay_choices", onOverlayChoices],
  ]);
}
