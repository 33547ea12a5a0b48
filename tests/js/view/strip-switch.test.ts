// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import { WidgetView } from "../../../js/view/view";

// The toolbar's "Memory" switch: offered where the widget has a memory strip, pressed while it is asked
// for, and disabled with the other kernel controls once the kernel is gone.
const switchOf = (view: WidgetView) => view.root.querySelector<HTMLButtonElement>(".tlw-strip-switch")!;

describe("the memory strip's switch", () => {
  it("is hidden until offered, and a click asks for the other state", () => {
    const view = new WidgetView(document.createElement("div"), 400);
    expect(switchOf(view).hidden).toBe(true);
    const toggle = vi.fn();
    view.setStripSwitch(false, toggle);
    expect(switchOf(view).hidden).toBe(false);
    expect(switchOf(view).getAttribute("aria-pressed")).toBe("false");
    switchOf(view).click();
    expect(toggle).toHaveBeenLastCalledWith(true);
    view.setStripSwitch(true, toggle);
    expect(switchOf(view).getAttribute("aria-pressed")).toBe("true");
    switchOf(view).click();
    expect(toggle).toHaveBeenLastCalledWith(false);
    view.setStripSwitch(null, toggle); // a widget with no strip (a diff)
    expect(switchOf(view).hidden).toBe(true);
  });

  it("is disabled when the kernel is gone", () => {
    const view = new WidgetView(document.createElement("div"), 400);
    view.setStripSwitch(false, () => {});
    view.setDisconnected("The kernel restarted.");
    expect(switchOf(view).disabled).toBe(true);
  });
});
