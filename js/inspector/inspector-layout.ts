// The inspector's layout beside the graph: the divider between the graph and the inspector (drag it, or focus it and
// use the arrow keys), the fold that shrinks the inspector to a thin strip, and maximize (the widget
// fills the notebook window; Escape or the button restores it). State lives in the model's traits
// (inspector_width, inspector_collapsed, maximized): the caller passes changes on and back.

import { MIN_INSPECTOR_WIDTH } from "../kernel/protocol";

export { MIN_INSPECTOR_WIDTH };
/** The graph keeps at least this much of the widget's width, however wide the inspector is dragged. */
export const MIN_GRAPH_WIDTH = 200;
/** One arrow key press on the divider moves it this far (with Shift, four times as far). */
export const KEY_STEP = 16;

/** The inspector width a drag or key press asks for, within what the widget's width allows. */
export function clampWidth(width: number, available: number): number {
  const widest = Math.max(MIN_INSPECTOR_WIDTH, available - MIN_GRAPH_WIDTH);
  return Math.round(Math.min(widest, Math.max(MIN_INSPECTOR_WIDTH, width)));
}

/** The new width for a key on the focused divider (the inspector is on the right), or null. */
export function widthForKey(key: string, shift: boolean, width: number, available: number): number | null {
  const step = shift ? KEY_STEP * 4 : KEY_STEP;
  if (key === "ArrowLeft") return clampWidth(width + step, available); // the divider moves left
  if (key === "ArrowRight") return clampWidth(width - step, available);
  if (key === "Home") return clampWidth(Number.POSITIVE_INFINITY, available);
  if (key === "End") return MIN_INSPECTOR_WIDTH;
  return null;
}

export interface InspectorLayoutEvents {
  /** The user set the inspector's width (px), by drag or keys: at the end of a drag, once. */
  onWidth: (width: number) => void;
  onCollapsed: (collapsed: boolean) => void;
  onMaximized: (maximized: boolean) => void;
}

function button(className: string): HTMLButtonElement {
  const element = document.createElement("button");
  element.type = "button";
  element.className = className;
  return element;
}

/**
 * The divider and fold of one widget. `side` is the inspector column (explore view) or the row of
 * inspectors under the panes (diff view, `resizable` false: only the fold applies).
 */
export class InspectorLayout {
  readonly divider: HTMLDivElement;
  private readonly fold: HTMLButtonElement;
  private width = 0;
  private collapsed = false;
  private maximized = false;
  private readonly onEscape = (event: KeyboardEvent) => {
    if (event.key !== "Escape" || !this.maximized) return;
    event.preventDefault();
    event.stopPropagation(); // JupyterLab's Escape (command mode) is not what the user meant here
    this.events.onMaximized(false);
  };

  constructor(
    private readonly root: HTMLElement,
    private readonly main: HTMLElement,
    private readonly side: HTMLElement,
    private readonly resizable: boolean,
    private readonly events: InspectorLayoutEvents,
  ) {
    this.divider = document.createElement("div");
    this.divider.className = "tlw-divider";
    this.divider.dataset.orientation = resizable ? "vertical" : "horizontal";
    this.fold = button("tlw-fold");
    this.fold.onclick = () => events.onCollapsed(!this.collapsed);
    this.fold.addEventListener("pointerdown", (event) => event.stopPropagation()); // a click, not a drag
    this.divider.append(this.fold);
    side.before(this.divider);
    if (resizable) this.makeDraggable();
    document.addEventListener("keydown", this.onEscape, true);
  }

  /** Shows the inspector at `width` px (the model's inspector_width). */
  setWidth(width: number): void {
    this.width = width;
    if (!this.resizable) return;
    // The graph keeps MIN_GRAPH_WIDTH whatever was asked for (a width set on a wider screen).
    this.side.style.flex = `0 0 min(${width}px, max(${MIN_INSPECTOR_WIDTH}px, 100% - ${MIN_GRAPH_WIDTH}px))`;
    this.divider.setAttribute("aria-valuenow", String(width));
  }

  setCollapsed(collapsed: boolean): void {
    this.collapsed = collapsed;
    this.root.dataset.inspector = collapsed ? "collapsed" : "open";
    const what = this.resizable ? "the inspector" : "the inspectors";
    this.fold.setAttribute("aria-label", collapsed ? `Show ${what}` : `Hide ${what}`);
    this.fold.title = collapsed ? `Show ${what}` : `Hide ${what} (more room for the graph)`;
    this.fold.setAttribute("aria-expanded", String(!collapsed));
    this.fold.textContent = this.resizable ? (collapsed ? "‹" : "›") : collapsed ? "˄" : "˅";
    if (!this.resizable) return;
    // A folded inspector has no split to move: the strip is only its "show" button.
    if (collapsed) {
      this.divider.removeAttribute("role");
      this.divider.removeAttribute("tabindex");
    } else {
      this.divider.setAttribute("role", "separator");
      this.divider.setAttribute("aria-orientation", "vertical");
      this.divider.setAttribute("aria-label", "Inspector width (arrow keys move it)");
      this.divider.setAttribute("aria-valuemin", String(MIN_INSPECTOR_WIDTH));
      this.divider.tabIndex = 0;
    }
  }

  /** Fills the notebook window with the widget, or puts it back in its cell. */
  setMaximized(maximized: boolean): void {
    if (maximized === this.maximized) return;
    this.maximized = maximized;
    this.root.dataset.maximized = String(maximized);
    // The top layer (a popover) escapes every ancestor's transform, containment and stacking context
    // (JupyterLab's windowed notebook has them), so the widget covers the window wherever its cell is.
    // The frames stay where they are in the DOM: moving one would reload its viewer.
    const popover = this.root as HTMLElement & { showPopover?: () => void; hidePopover?: () => void };
    if (typeof popover.showPopover !== "function") return; // CSS alone: position fixed
    if (maximized) {
      this.root.setAttribute("popover", "manual");
      popover.showPopover();
    } else if (this.root.hasAttribute("popover")) {
      if (this.root.matches(":popover-open")) popover.hidePopover?.();
      this.root.removeAttribute("popover");
    }
  }

  dispose(): void {
    document.removeEventListener("keydown", this.onEscape, true);
    this.setMaximized(false);
  }

  private available(): number {
    return this.main.getBoundingClientRect().width - this.divider.getBoundingClientRect().width;
  }

  private makeDraggable(): void {
    let dragging: { startX: number; startWidth: number; width: number } | null = null;
    this.divider.addEventListener("pointerdown", (event) => {
      if (this.collapsed || event.button !== 0) return;
      event.preventDefault();
      // Captured: the pointer keeps reporting here while it crosses the viewer's frame.
      this.divider.setPointerCapture(event.pointerId);
      dragging = { startX: event.clientX, startWidth: this.side.getBoundingClientRect().width, width: this.width };
      this.root.dataset.dragging = "true";
    });
    this.divider.addEventListener("pointermove", (event) => {
      if (!dragging) return;
      dragging.width = clampWidth(dragging.startWidth + dragging.startX - event.clientX, this.available());
      this.setWidth(dragging.width); // follows the pointer; the model hears once, at the end
    });
    const end = () => {
      if (!dragging) return;
      const { width } = dragging;
      dragging = null;
      delete this.root.dataset.dragging;
      this.events.onWidth(width);
    };
    this.divider.addEventListener("pointerup", end);
    this.divider.addEventListener("pointercancel", end);
    this.divider.addEventListener("keydown", (event) => {
      if (this.collapsed || event.target !== this.divider) return;
      const current = this.side.getBoundingClientRect().width;
      const width = widthForKey(event.key, event.shiftKey, current, this.available());
      if (width === null) return;
      event.preventDefault();
      this.setWidth(width);
      this.events.onWidth(width);
    });
  }
}
