// The memory strip (js/memory/memory-strip.ts) bound to the model: shown while `timeline` is "memory", its
// series asked once (`memory_timeline`), and again only when the viewer or granularity changes (the
// node ids a click selects are the viewer's); the selection's mark follows `selected_label`; a click
// selects as a click in the graph does; the toolbar's "Memory" switch sets `timeline`. A reply that fails or does not parse hides the strip and says
// why in the notice: nothing is half drawn.
import { ChannelDisposedError, type KernelChannel } from "../kernel/channel";
import { errorText } from "../shared/error-text";
import { MemoryStrip } from "./memory-strip";
import { isRecording } from "../kernel/offline";
import { parseMemoryTimelineReply, parseTimeline } from "../kernel/protocol";
import { listen, type TraitsModel } from "../view/traits";
import type { WidgetView } from "../view/view";
import type { ViewLife } from "../view/view-life";

export interface BoundTimeline {
  /** Asks for the strip if the model shows one (once the view knows it has a kernel or a recording). */
  refresh(): Promise<void>;
  dispose(): void;
}

export function bindTimeline(
  model: TraitsModel,
  view: WidgetView,
  channel: KernelChannel,
  life: ViewLife,
  onSelect: (nodeId: string) => void,
): BoundTimeline {
  const strip = new MemoryStrip(document, { onPick: onSelect });
  view.attachStrip(strip.root);
  let generation = 0;
  const hide = () => {
    strip.clear();
    view.setStripShown(false);
  };
  const refresh = async () => {
    const mine = ++generation;
    const current = () => !life.disposed && mine === generation;
    if (!parseTimeline(model.get("timeline"))) {
      hide();
      return;
    }
    if (life.lost) return; // no kernel to ask: the strip keeps what it shows
    try {
      const { result } = await channel.request("memory_timeline");
      strip.root.dataset.repliedAt = String(Date.now()); // the benchmark times the strip's draw from here
      const reply = parseMemoryTimelineReply(result);
      if (!current()) return;
      view.setStripShown(true);
      strip.show(reply, model.get("selected_label") ?? "");
    } catch (error) {
      if (!current() || error instanceof ChannelDisposedError) return;
      hide();
      view.setNotice(`The memory strip was not drawn: ${errorText(error)}`);
    }
  };
  // Offered where the widget has a strip: an explorer (a diff has no `timeline`); in a saved page, only
  // if it was saved with the strip shown (else no series was kept to show).
  const offered = model.get("timeline") !== undefined && (!isRecording(model) || parseTimeline(model.get("timeline")) !== null);
  const showSwitch = () =>
    view.setStripSwitch(offered ? parseTimeline(model.get("timeline")) !== null : null, (shown) => {
      model.set("timeline", shown ? "memory" : null); // the kernel validates it; refused, it stays
      model.save_changes();
    });
  showSwitch();
  const again = () => {
    if (parseTimeline(model.get("timeline"))) void refresh();
  };
  const stopListening = listen(model, [
    [
      "change:timeline",
      () => {
        showSwitch();
        void refresh();
      },
    ],
    ["change:viewer", again],
    ["change:granularity", again],
    ["change:selected_label", () => strip.mark(model.get("selected_label") ?? "")],
  ]);
  return {
    refresh,
    dispose: () => {
      stopListening();
      strip.dispose();
    },
  };
}
