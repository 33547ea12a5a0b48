// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import { ChannelDisposedError, type KernelChannel } from "../../../js/kernel/channel";
import { askOverlaysAheadWhenNear } from "../../../js/view/toolbar-traits";
import type { TraitsModel } from "../../../js/view/traits";
import { WidgetView } from "../../../js/view/view";
import type { ViewLife } from "../../../js/view/view-life";

// The reader nears the overlay menu or the memory switch: the view asks the kernel, once, to build the
// overlays it is slow to build; never without a kernel; a failure is said in the widget's notice line.
const model = {} as TraitsModel;
const menuOf = (view: WidgetView) => view.root.querySelector<HTMLSelectElement>(".tlw-overlay-select")!;
const switchOf = (view: WidgetView) => view.root.querySelector<HTMLButtonElement>(".tlw-strip-switch")!;
const noticeOf = (view: WidgetView) => view.root.querySelector<HTMLElement>(".tlw-notice")!;

function setUp(answer: () => Promise<unknown>, life: ViewLife = { disposed: false, lost: null }) {
  const view = new WidgetView(document.createElement("div"), 400);
  const request = vi.fn(answer);
  askOverlaysAheadWhenNear(model, view, { request } as unknown as KernelChannel, life);
  return { view, request };
}

describe("overlays asked ahead", () => {
  it("asks once, when the pointer enters the menu or the memory switch or one gets the focus", async () => {
    const { view, request } = setUp(async () => ({ result: { overlays: ["time", "memory"] }, buffers: [] }));
    expect(request).not.toHaveBeenCalled();
    menuOf(view).dispatchEvent(new Event("pointerenter"));
    expect(request).toHaveBeenCalledWith("overlays_ahead");
    switchOf(view).dispatchEvent(new Event("focus"));
    menuOf(view).dispatchEvent(new Event("focus"));
    expect(request).toHaveBeenCalledTimes(1);
    await Promise.resolve();
    expect(noticeOf(view).textContent).toBe("");
  });

  it("the memory switch alone asks too", () => {
    const { view, request } = setUp(async () => ({ result: { overlays: [] }, buffers: [] }));
    switchOf(view).dispatchEvent(new Event("pointerenter"));
    expect(request).toHaveBeenCalledTimes(1);
  });

  it("never asks once the kernel is gone", () => {
    const { view, request } = setUp(async () => ({}), { disposed: false, lost: "restarted" });
    menuOf(view).dispatchEvent(new Event("pointerenter"));
    expect(request).not.toHaveBeenCalled();
  });

  it("says a failed request in the notice line, but not a closed widget's", async () => {
    const failed = setUp(async () => Promise.reject(new Error("unknown request 'overlays_ahead'")));
    menuOf(failed.view).dispatchEvent(new Event("pointerenter"));
    await vi.waitFor(() => expect(noticeOf(failed.view).textContent).toContain("Overlays were not prepared"));
    const closed = setUp(async () => Promise.reject(new ChannelDisposedError("widget closed")));
    menuOf(closed.view).dispatchEvent(new Event("pointerenter"));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(noticeOf(closed.view).textContent).toBe("");
  });
});
