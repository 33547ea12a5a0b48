// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AssetBundle } from "../../../js/kernel/assets";
import { pageGlobalKey } from "../../../js/shared/page-globals";

// The frame is a stand-in: what is tested here is when the page parks one, who may take it, and that
// nothing is left behind (the real frame's boot and move are tested end to end in a real JupyterLab).
const made: FakeFrame[] = [];
class FakeFrame {
  readonly iframe = document.createElement("div"); // a frame of its own is not what is tested
  adoptedInto: HTMLElement | null = null;
  disposed = false;
  static parked(holder: HTMLElement, bundle: AssetBundle): FakeFrame {
    const frame = new FakeFrame(bundle.key);
    holder.appendChild(frame.iframe);
    made.push(frame);
    return frame;
  }
  constructor(readonly key: string) {}
  adopt(container: HTMLElement): void {
    this.adoptedInto = container;
    container.appendChild(this.iframe);
  }
  dispose(): void {
    this.disposed = true;
    this.iframe.remove();
  }
}
vi.mock("../../../js/model-explorer/bridge", () => ({ ModelExplorerFrame: FakeFrame }));
const { adoptParkedApp, drawEnded, drawStarted } = await import("../../../js/model-explorer/parked-app");

const bundle = (key: string) => ({ key }) as AssetBundle;
const APP = bundle("model-explorer@1:a");
const adoptOptions = { graph: new Promise<never>(() => {}), onSelect: () => {} };
const parkedApps = () => document.querySelectorAll(".tlw-parked-app");

function view(): HTMLElement {
  const container = document.createElement("div");
  document.body.appendChild(container);
  return container;
}

describe("the Model Explorer app parked for the next explorer", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    Object.assign(Element.prototype, { moveBefore: () => {} }); // Chromium 133+ moves frames intact
    made.length = 0;
  });
  afterEach(() => {
    adoptParkedApp(APP, view(), adoptOptions); // whatever is parked is taken, so each case starts bare
    vi.useRealTimers();
    document.body.replaceChildren();
    delete (Element.prototype as { moveBefore?: unknown }).moveBefore;
  });

  it("is parked once no frame has drawn for a while, out of sight and out of reach", () => {
    drawEnded(APP);
    vi.advanceTimersByTime(1000);
    const netronEnds = drawStarted(); // another frame draws: no app boots beside it
    vi.advanceTimersByTime(5000);
    expect(parkedApps()).toHaveLength(0);
    netronEnds(); // a Netron frame: the page has shown Model Explorer's app before
    vi.advanceTimersByTime(1500);
    expect(parkedApps()).toHaveLength(1);
    const holder = parkedApps()[0] as HTMLElement;
    expect(holder.inert).toBe(true);
    expect(holder.style.opacity).toBe("0");
    expect(holder.style.pointerEvents).toBe("none");
    drawEnded(APP);
    vi.advanceTimersByTime(1500);
    expect(made).toHaveLength(1); // one per page
  });

  it("waits for every draw in flight on the page, a frame closed before it drew included", () => {
    drawEnded(APP);
    const first = drawStarted();
    const second = drawStarted();
    first(APP);
    vi.advanceTimersByTime(5000);
    expect(parkedApps()).toHaveLength(0); // the second frame still draws
    first(APP); // ending twice counts once
    vi.advanceTimersByTime(5000);
    expect(parkedApps()).toHaveLength(0);
    second(); // closed before it drew
    vi.advanceTimersByTime(1500);
    expect(parkedApps()).toHaveLength(1);
  });

  it("is taken by the next explorer of the same app, once, and leaves nothing behind", () => {
    drawEnded(APP);
    vi.advanceTimersByTime(1500);
    expect(adoptParkedApp(bundle("model-explorer@2:b"), view(), adoptOptions)).toBeNull(); // another build's app
    const container = view();
    const taken = adoptParkedApp(APP, container, adoptOptions) as unknown as FakeFrame;
    expect(taken).toBe(made[0]);
    expect(taken.adoptedInto).toBe(container);
    expect(parkedApps()).toHaveLength(0);
    expect(adoptParkedApp(APP, view(), adoptOptions)).toBeNull();
  });

  it("is taken only by the build that parked it: another build's frame may speak another protocol", () => {
    drawEnded(APP);
    vi.advanceTimersByTime(1500);
    // The page's one slot (shared by every build of its shape) now holds what another build parked.
    const slot = (globalThis as Record<string, unknown>)[pageGlobalKey("ParkedApp")] as { parked: { format: unknown } };
    slot.parked.format = "another build";
    expect(adoptParkedApp(APP, view(), adoptOptions)).toBeNull();
    drawEnded(APP); // this build parks its own in its place
    vi.advanceTimersByTime(1500);
    expect(made[0].disposed).toBe(true);
    expect(adoptParkedApp(APP, view(), adoptOptions)).toBe(made[1]);
  });

  it("is dropped when the browser refuses to move it, and the explorer makes its own frame", () => {
    drawEnded(APP);
    vi.advanceTimersByTime(1500);
    const refusing = vi.spyOn(FakeFrame.prototype, "adopt").mockImplementation(() => {
      throw new DOMException("moveBefore refused", "HierarchyRequestError");
    });
    expect(adoptParkedApp(APP, view(), adoptOptions)).toBeNull();
    expect(made[0].disposed).toBe(true);
    expect(parkedApps()).toHaveLength(0);
    refusing.mockRestore();
  });

  it("is never made where the browser cannot move a frame without reloading it", () => {
    delete (Element.prototype as { moveBefore?: unknown }).moveBefore;
    drawEnded(APP);
    vi.advanceTimersByTime(60_000);
    expect(parkedApps()).toHaveLength(0);
  });

  it("is dropped, its memory with it, when nobody takes it for ten minutes", () => {
    drawEnded(APP);
    vi.advanceTimersByTime(1500);
    vi.advanceTimersByTime(10 * 60 * 1000);
    expect(made[0].disposed).toBe(true);
    expect(parkedApps()).toHaveLength(0);
  });
});
