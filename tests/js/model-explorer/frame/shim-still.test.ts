// @vitest-environment happy-dom
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ME_SELECT_NODE } from "../../../../js/model-explorer/protocol";
import { drawMovesStill, drawWidgetSelectsStill, paintedStill } from "../../../../js/model-explorer/frame/shim-still";

// What the graph canvases show (happy-dom has no WebGL to read): a test's draws change it.
const pixels = vi.hoisted(() => ({ now: "old" }));
vi.mock("../../../../js/model-explorer/frame/shim-repaint", async (original) => ({
  ...(await original<typeof import("../../../../js/model-explorer/frame/shim-repaint")>()),
  canvasLook: () => pixels.now,
}));

/** The app's three.js service: a draw of the scene, and a camera that glides for `duration` ms. */
class FakeThreejs {
  draws = 0;
  paints = ""; // what a draw puts on the canvas ("": it leaves the pixels as they are)
  centred: [number, number, number, number][] = [];
  render(): void {
    this.draws++;
    if (this.paints) pixels.now = this.paints;
  }
  centerViewAt(x: number, y: number, scale: number, duration = 300): void {
    this.centred.push([x, y, scale, duration]);
  }
}

/** A renderer as the app has it: an animation that draws on frames until progress 1. */
class FakeRenderer {
  progress: number[] = [];
  framesAsked = 0;
  webglRendererThreejsService = new FakeThreejs();
  get draws(): number {
    return this.webglRendererThreejsService.draws;
  }
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

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

describe("the widget's changes drawn without the app's move-into-place animation", () => {
  afterEach(() => {
    delete window.me_test;
  });

  it("draws the animation's end once on the next frame, however many effects react", async () => {
    const renderer = new FakeRenderer();
    install(renderer);
    const restore = drawMovesStill();
    renderer.animateIntoPositions();
    expect(renderer.progress).toEqual([1]);
    const helper: number[] = [];
    renderer.animateIntoPositions((value) => helper.push(value));
    expect(helper).toEqual([1]);
    expect(renderer.framesAsked).toBe(0);
    await nextFrame();
    expect(renderer.draws).toBe(1);
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

  it("leaves a renderer without the members alone, and keeps still until the last change is drawn", () => {
    const bare = { appService: {} };
    const renderer = new FakeRenderer();
    window.me_test = { renderers: { "0": bare as never, "1": renderer as never } };
    const first = drawMovesStill();
    const second = drawMovesStill(); // a second change while the first is painted
    first();
    first(); // released once only
    expect(Object.hasOwn(renderer, "animateIntoPositions")).toBe(true); // the second is still painted
    second();
    expect(Object.hasOwn(renderer, "animateIntoPositions")).toBe(false);
    expect(Object.keys(bare)).toEqual(["appService"]);
  });
});

describe("a node the widget selects, revealed and centred at once", () => {
  beforeAll(() => drawWidgetSelectsStill(() => true)); // once, as the frame's shim installs it
  afterEach(() => {
    delete window.me_test;
  });

  const selectFromParent = () =>
    window.dispatchEvent(new MessageEvent("message", { source: window.parent, data: { cmd: ME_SELECT_NODE, nodeId: "n" } }));

  it("draws the reveal still and jumps the camera, then gives the app its animations back", async () => {
    const renderer = new FakeRenderer();
    install(renderer);
    selectFromParent();
    renderer.animateIntoPositions(); // the app's relayout of the revealed layers
    renderer.webglRendererThreejsService.centerViewAt(1, 2, 3, 400); // its centring on the node
    expect(renderer.webglRendererThreejsService.centred).toEqual([[1, 2, 3, 0]]);
    expect(renderer.framesAsked).toBe(0);
    for (let frame = 0; frame < 3; frame++) await nextFrame(); // the centring painted
    expect(Object.hasOwn(renderer, "animateIntoPositions")).toBe(false);
    expect(Object.hasOwn(renderer.webglRendererThreejsService, "centerViewAt")).toBe(false);
    renderer.webglRendererThreejsService.centerViewAt(1, 2, 3, 400); // the user's own: it glides
    expect(renderer.webglRendererThreejsService.centred.at(-1)).toEqual([1, 2, 3, 400]);
  });

  it("gives the animations back at the user's press, and ignores a select from anyone but the parent", () => {
    const renderer = new FakeRenderer();
    install(renderer);
    window.dispatchEvent(new MessageEvent("message", { source: null, data: { cmd: ME_SELECT_NODE, nodeId: "n" } }));
    expect(Object.hasOwn(renderer, "animateIntoPositions")).toBe(false);
    selectFromParent();
    expect(Object.hasOwn(renderer, "animateIntoPositions")).toBe(true);
    // happy-dom's events are trusted when dispatched by the environment; a script's are not.
    window.dispatchEvent(Object.defineProperty(new Event("pointerdown"), "isTrusted", { value: true }));
    expect(Object.hasOwn(renderer, "animateIntoPositions")).toBe(false);
  });
});

describe("a change the widget makes, called painted from the canvas' pixels", () => {
  afterEach(async () => {
    await nextFrame(); // the hold of a change painted ends a frame later
    delete window.me_test;
    pixels.now = "old";
  });

  it("is done right after the draw that changed the pixels, in that draw's own animation frame", async () => {
    const renderer = new FakeRenderer();
    install(renderer);
    renderer.webglRendererThreejsService.paints = "new";
    let painted = false;
    void paintedStill(() => renderer.webglRendererThreejsService.render()).then(() => {
      painted = true;
    });
    expect(renderer.draws).toBe(0); // drawn on the next frame, not in the change
    await nextFrame();
    await Promise.resolve();
    expect(renderer.draws).toBe(1);
    expect(painted).toBe(true); // not a frame later
  });

  it("keeps the app's moves still a frame longer: an effect of the app's that runs after the paint draws still", async () => {
    const renderer = new FakeRenderer();
    install(renderer);
    renderer.webglRendererThreejsService.paints = "new";
    await paintedStill(() => renderer.webglRendererThreejsService.render());
    expect(Object.hasOwn(renderer, "animateIntoPositions")).toBe(true); // the app's change detection may run now
    await nextFrame();
    expect(Object.hasOwn(renderer, "animateIntoPositions")).toBe(false); // its own animations back
  });

  it("is called done after a few paints when no pixel changes (the same colours on what is on screen)", async () => {
    const renderer = new FakeRenderer();
    install(renderer);
    let frames = 0;
    let painted = false;
    const counting = () => {
      frames++;
      if (!painted) requestAnimationFrame(counting);
    };
    requestAnimationFrame(counting);
    await paintedStill(() => renderer.webglRendererThreejsService.render()).then(() => {
      painted = true;
    });
    expect(renderer.draws).toBe(1);
    expect(frames).toBeGreaterThanOrEqual(8); // four paints of two frames each
  });
});
