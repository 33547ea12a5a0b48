// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { drawMovesStill } from "../../../../js/model-explorer/frame/shim-still";

/** A renderer as the app has it: an animation that draws on frames until progress 1. */
class FakeRenderer {
  progress: number[] = [];
  draws = 0;
  framesAsked = 0;
  webglRendererThreejsService = { render: () => this.draws++ };
  updateAnimatinProgress(value: number): void {
    this.progress.push(value);
  }
  animateIntoPositions(progress: (value: number) => void = (value) => this.updateAnimatinProgress(value)): void {
    progress(0.1);
    this.webglRendererThreejsService.render();
    this.framesAsked++; // the app asks for the next animation frame here
  }
}

function install(...renderers: FakeRenderer[]): void {
  window.me_test = { renderers: Object.fromEntries(renderers.map((renderer, index) => [String(index), renderer as never])) };
}

describe("the widget's changes drawn without the app's move-into-place animation", () => {
  afterEach(() => {
    delete window.me_test;
  });

  it("draws the animation's end once, with the caller's progress or the renderer's own", () => {
    const renderer = new FakeRenderer();
    install(renderer);
    const restore = drawMovesStill();
    renderer.animateIntoPositions();
    expect(renderer.progress).toEqual([1]);
    const helper: number[] = [];
    renderer.animateIntoPositions((value) => helper.push(value));
    expect(helper).toEqual([1]);
    expect(renderer.draws).toBe(2);
    expect(renderer.framesAsked).toBe(0);
    restore();
  });

  it("gives every renderer its animation back once the change is drawn", () => {
    const panes = [new FakeRenderer(), new FakeRenderer()];
    install(...panes);
    drawMovesStill()();
    for (const renderer of panes) {
      expect(Object.hasOwn(renderer, "animateIntoPositions")).toBe(false);
      renderer.animateIntoPositions();
      expect(renderer.framesAsked).toBe(1);
    }
  });

  it("leaves a renderer without the members alone, and does not stack over a change still drawing", () => {
    const bare = { appService: {} };
    const renderer = new FakeRenderer();
    window.me_test = { renderers: { "0": bare as never, "1": renderer as never } };
    const first = drawMovesStill();
    const second = drawMovesStill(); // a second change while the first is painted
    second();
    expect(Object.hasOwn(renderer, "animateIntoPositions")).toBe(true); // still the first's
    first();
    expect(Object.hasOwn(renderer, "animateIntoPositions")).toBe(false);
    expect(Object.keys(bare)).toEqual(["appService"]);
  });
});
