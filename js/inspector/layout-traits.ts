// The inspector layout (js/inspector/inspector-layout.ts) bound to the model's traits: the view's drags, keys
// and buttons set inspector_width, inspector_collapsed and maximized (save_html keeps them too); a
// change from the kernel or another view moves this view's layout.
import { InspectorLayout } from "./inspector-layout";
import { INSPECTOR_WIDTH } from "../kernel/protocol";
import { listen, type TraitsModel } from "../view/traits";
import type { WidgetView } from "../view/view";
import type { ViewKind } from "../view/view-kind";

type LayoutTrait = "inspector_width" | "inspector_collapsed" | "maximized";

export interface BoundLayout {
  toggleMaximized(): void;
  /** Leaves a maximized widget (Escape in a viewer frame). */
  restore(): void;
  dispose(): void;
}

/** `fit` fits the viewer's graph to its frame; it runs once the frame has its size after maximize or restore. */
export function bindLayout(model: TraitsModel, view: WidgetView, kind: ViewKind, fit: () => void): BoundLayout {
  const setTrait = (name: LayoutTrait, value: number | boolean) => {
    model.set(name, value as never);
    model.save_changes();
  };
  const layout = new InspectorLayout(view.root, view.main, view.side as HTMLElement, kind.sideResizable, {
    onWidth: (width) => setTrait("inspector_width", width),
    onCollapsed: (collapsed) => setTrait("inspector_collapsed", collapsed),
    onMaximized: (maximized) => setTrait("maximized", maximized),
  });
  let fitPending = false;
  const fitObserver = new ResizeObserver(() => {
    if (!fitPending) return;
    fitPending = false;
    // Two frames later: the viewer's own resize handling (a frame after the resize) has run by then.
    requestAnimationFrame(() => requestAnimationFrame(fit));
  });
  fitObserver.observe(view.body);
  const onWidth = () => layout.setWidth(model.get("inspector_width") ?? INSPECTOR_WIDTH);
  const onCollapsed = () => {
    layout.setCollapsed(Boolean(model.get("inspector_collapsed")));
    view.setHeight(model.get("height")); // a diff's folded inspectors leave a strip
  };
  const onMaximized = () => {
    const maximized = Boolean(model.get("maximized"));
    fitPending = true;
    layout.setMaximized(maximized);
    view.setMaximized(maximized);
  };
  onWidth();
  onCollapsed();
  onMaximized();
  const stopListening = listen(model, [
    ["change:inspector_width", onWidth],
    ["change:inspector_collapsed", onCollapsed],
    ["change:maximized", onMaximized],
  ]);
  return {
    toggleMaximized: () => setTrait("maximized", !model.get("maximized")),
    restore: () => {
      if (model.get("maximized")) setTrait("maximized", false);
    },
    dispose: () => {
      stopListening();
      fitObserver.disconnect();
      layout.dispose();
    },
  };
}
