// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import { ChannelDisposedError, type KernelChannel } from "../../../js/kernel/channel";
import { askOverlaysAheadWhenNear } from "../../../js/view/toolbar-traits";
import type { TraitsModel } from "../../../js/view/traits";
import { HOVER_INTENT_MS, WidgetView } from "../../../js/view/view";
import type { ViewLife } from "../../../js/view/view-life";

// The reader nears the overlay menu or the memory switch (the pointer rests on one, or one gets the
// focus): the view asks the kernel, once, to build the overlays it is slow to build; a pointer passing
// over does not count; never without a kernel; a failure is said in the widget's notice line.
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
  it("asks once, when the pointer rests on the menu or the memory switch or one gets the focus", async () => {
    vi.useFakeTimers();
    const { view, request } = setUp(async () => ({ result: { overlays: ["time", "memory"] }, buffers: [] }));
    menuOf(view).dispatchEvent(new Event("pointerenter"));
    menuOf(view).dispatchEvent(new Event("pointerleave")); // passing over, as a scroll does
    vi.advanceTimersByTime(HOVER_INTENT_MS * 2);
    expect(request).not.toHaveBeenCalled();
    menuOf(view).dispatchEvent(new Event("pointerenter"));
    vi.advanceTimersByTime(HOVER_INTENT_MS);
    expect(request).toHaveBeenCalledWith("overlays_ahead");
    vi.useRealTimers();
    switchOf(view).dispatchEvent(new Event("focus"));
    menuOf(view).dispatchEvent(new Event("focus"));
    expect(request).toHaveBeenCalledTimes(1);
    await Promise.resolve();
    expect(noticeOf(view).textContent).toBe("");
  });

  it("the memory switch alone asks too", () => {
    const { view, request } = setUp(async () => ({ result: { overlays: [] }, buffers: [] }));
    switchOf(view).dispatchEvent(new Event("focus"));
    expect(request).toHaveBeenCalledTimes(1);
  });

  it("never asks once the kernel is gone", () => {
    const { view, request } = setUp(async () => ({}), { disposed: false, lost: "restarted" });
    menuOf(view).dispatchEvent(new Event("focus"));
    expect(request).not.toHaveBeenCalled();
  });

  it("says a failed request in the notice line, but not a closed widget's", async () => {
    const failed = setUp(async () => Promise.reject(new Error("unknown request 'overlays_ahead'")));
    menuOf(failed.view).dispatchEvent(new Event("focus"));
    await vi.waitFor(() => expect(noticeOf(failed.view).textContent).toContain("Overlays were not prepared"));
    const closed = setUp(async () => Promise.reject(new ChannelDisposedError("widget closed")));
    menuOf(closed.view).dispatchEvent(new Event("focus"));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(noticeOf(closed.view).textContent).toBe("");
  });
});
