// The widget's traits as the kernel syncs them (torchlens_widgets: the Explorer, Diff and Compare widgets),
// typed in widget-traits.ts, which is written from the Python traits. State travels in traits; bytes
// travel in requests (js/kernel/protocol.ts).

import type { AnyModel } from "@anywidget/types";
import { WIDGET_TRAIT_NAMES, type WidgetTraits } from "./widget-traits";

export { WIDGET_TRAIT_NAMES, type WidgetTraits };

/** One of a diff's largest deltas. A NaN or Inf delta has value null and says which in text ("NaN", "inf"). */
export type TopDelta = NonNullable<NonNullable<WidgetTraits["summary"]>["top"]>[number];

/** The widget's model as a view holds it. */
export type TraitsModel = AnyModel<WidgetTraits>;

/** A model event a view listens to: a trait's change (a misspelt trait does not compile), or a message. */
export type TraitEvent = `change:${keyof WidgetTraits}` | "msg:custom";

/** Listens to each model event with its handler; returns what removes exactly these. */
export function listen(model: TraitsModel, handlers: [TraitEvent, () => void][]): () => void {
  for (const [event, handler] of handlers) model.on(event, handler);
  return () => {
    for (const [event, handler] of handlers) model.off(event, handler);
  };
}
