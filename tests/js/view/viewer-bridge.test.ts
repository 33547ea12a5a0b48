import { afterEach, describe, expect, it, vi } from "vitest";
import { FrameBridge, type FrameMessage, MAX_KEPT_ERRORS } from "../../../js/view/viewer-bridge";

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
