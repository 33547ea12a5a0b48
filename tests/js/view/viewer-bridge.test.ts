import { afterEach, describe, expect, it, vi } from "vitest";
import { FrameBridge, type FrameMessage, MAX_KEPT_ERRORS, MAX_REASKS } from "../../../js/view/viewer-bridge";

/** A bridge whose frame reports errors, as a viewer that logs one on every redraw does. */
class ReportingBridge extends FrameBridge {
  readonly rendered = new Promise<number>(() => {});
  constructor() {
    super({ title: "test", onSelect: () => {} });
  }
  report(text: string): void {
    this.noteStartupError(text);
  }
  protected postSelect(): void {}
  protected receive(_message: FrameMessage): void {}
}

afterEach(() => vi.unstubAllGlobals());

describe("a frame's reported errors", () => {
  it("keeps the first few and counts the rest, for the frame's whole life", () => {
    vi.stubGlobal("document", { createElement: () => ({ setAttribute: () => {} }) });
    const bridge = new ReportingBridge();
    for (let i = 0; i < 10_000; i += 1) bridge.report(`error ${i}`);
    const kept = bridge.startupErrors;
    expect(kept).toHaveLength(MAX_KEPT_ERRORS + 1);
    expect(kept[0]).toBe("error 0");
    expect(kept.at(-1)).toBe(`and ${10_000 - MAX_KEPT_ERRORS} more`);
  });
});

/** A bridge whose frame can take selects at once, recording what it was asked to select. */
class SelectingBridge extends FrameBridge {
  readonly rendered = new Promise<number>(() => {});
  readonly asked: string[] = [];
  constructor() {
    super({ title: "test", onSelect: () => {} });
    this.becomeSelectable();
  }
  answer(nodeId: string): void {
    this.answeredSelect(nodeId);
  }
  protected postSelect(nodeId: string): void {
    this.asked.push(nodeId);
  }
  protected receive(_message: FrameMessage): void {}
}

describe("a viewer's late answer to an older select", () => {
  it("is undone: the newer select is asked again", () => {
    vi.stubGlobal("document", { createElement: () => ({ setAttribute: () => {} }) });
    const bridge = new SelectingBridge();
    bridge.select("hidden"); // the viewer must lay out its layers first
    bridge.select("on-screen"); // answered at once
    bridge.answer("on-screen");
    bridge.answer("hidden"); // the layout is done: the app selects the older node
    expect(bridge.asked).toEqual(["hidden", "on-screen", "on-screen"]);
    bridge.answer("on-screen");
    expect(bridge.asked).toHaveLength(3);
  });

  it("is asked again a few times at most, and not at all before any select", () => {
    vi.stubGlobal("document", { createElement: () => ({ setAttribute: () => {} }) });
    const bridge = new SelectingBridge();
    bridge.answer("a");
    expect(bridge.asked).toEqual([]);
    bridge.select("b");
    for (let i = 0; i < 10; i += 1) bridge.answer("a");
    expect(bridge.asked).toEqual(["b", ...Array(MAX_REASKS).fill("b")]);
  });
});
