// The toolbar's controls bound to the model's traits: the overlay choice (its choices grow when the
// kernel adds a custom overlay) and summary, the notice line, and a diff's largest-delta chips; and the
// kernel told when the reader nears the overlay controls.
import { ChannelDisposedError, type KernelChannel } from "../kernel/channel";
import { isRecording } from "../kernel/offline";
import { parseOverlaysAheadReply } from "../kernel/protocol";
import { errorText } from "../shared/error-text";
import { listen, type TraitsModel } from "./traits";
import type { WidgetView } from "./view";
import type { ViewKind } from "./view-kind";
import type { ViewLife } from "./view-life";

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

/**
 * The reader nears the overlay menu or the memory switch: the kernel starts the overlays it is slow to
 * build (the memory overlay: torchlens' liveness estimate, seconds on a big trace, which the memory strip
 * reads too), once per view, while they choose. Never from a saved page: it has no kernel.
 */
export function askOverlaysAheadWhenNear(model: TraitsModel, view: WidgetView, channel: KernelChannel, life: ViewLife): void {
  let asked = false;
  view.onColourControlsNear(() => {
    if (asked || life.lost || isRecording(model)) return;
    asked = true;
    channel
      .request("overlays_ahead")
      .then(({ result }) => parseOverlaysAheadReply(result))
      .catch((error: unknown) => {
        if (!(error instanceof ChannelDisposedError)) view.setNotice(`Overlays were not prepared: ${errorText(error)}`);
      });
  });
}
