// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import { remedyIsViewer } from "../../../js/shared/error-text";
import { WidgetView } from "../../../js/view/view";

// The error box: an error whose remedy is another viewer (Model Explorer without WebGL: Netron) offers
// a button that switches to it, where the view may set the widget's viewer.
function view(switchViewer?: (viewer: string) => void): WidgetView {
  const made = new WidgetView(document.createElement("div"), 400);
  made.onActions({ saveImage: () => {}, toggleMaximized: () => {}, switchViewer });
  return made;
}
const NO_WEBGL = remedyIsViewer("Model Explorer cannot draw here: no WebGL. Remedy: Netron.", "netron");
const errorButtons = (shown: WidgetView) => [...shown.root.querySelectorAll<HTMLButtonElement>(".tlw-error button")];

describe("the error box", () => {
  it("offers the viewer an error names as its remedy, and one click switches to it", () => {
    const switchViewer = vi.fn();
    const shown = view(switchViewer);
    shown.showError(NO_WEBGL.message, NO_WEBGL);
    expect(shown.root.querySelector(".tlw-error")?.textContent).toContain("no WebGL");
    const [button] = errorButtons(shown);
    expect(button.textContent).toBe("Switch to Netron");
    button.click();
    expect(switchViewer).toHaveBeenCalledWith("netron");
    shown.clearError();
    expect(errorButtons(shown)).toHaveLength(0);
  });

  it("offers nothing for another error, nor where the view cannot switch (a diff, a saved page)", () => {
    const shown = view(vi.fn());
    shown.showError("The kernel refused.", new Error("The kernel refused."));
    expect(errorButtons(shown)).toHaveLength(0);
    const diff = view(undefined);
    diff.showError(NO_WEBGL.message, NO_WEBGL);
    expect(errorButtons(diff)).toHaveLength(0);
  });
});
