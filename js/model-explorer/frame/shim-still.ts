// Inside the Model Explorer frame: a change the widget makes to the graph already drawn (marks, an overlay
// set or cleared through the app's route, a baseline's facts, a node it selects) is drawn at once, not
// animated. The app repaints such a change through its move-into-place animation: the whole scene drawn on
// every animation frame for 200 ms, once from each of the renderer's effects that reacts (the scene, the
// selection's inputs and outputs, the identical layers), and glides its camera to a selected node for
// 400 ms. A highlight took 22 full draws and a select 21-25, each about 100 ms of software WebGL on an
// opened GPT-2 (docs/recolour-opened-graph.md). While the widget's change is painted, each renderer draws
// the end state of such an animation once, on the next frame, and a select's camera jumps; the
// app's own moves (a click, an expand) animate as before outside that time.
import { nextPaint } from "../../frame/frame-manners";
import { ME_SELECT_NODE } from "../protocol";
import { appRenderers, type Renderer, type ThreejsService } from "./app-internals";
import { canvasLook, repainted } from "./shim-repaint";
import { PRESSES } from "./shim-selection";

/** Sets the animation's progress (0 to 1) on the renderer's meshes; the app's default sets all of them. */
type Progress = (progress: number) => void;

/** A renderer with what the still draw calls: its animation, its progress setter and its scene's draw. */
type Animating = Renderer & Required<Pick<Renderer, "animateIntoPositions" | "updateAnimatinProgress" | "webglRendererThreejsService">>;

/** The three.js service of a renderer, through which the app centres its camera on a node. */
type Centring = ThreejsService & Required<Pick<ThreejsService, "centerViewAt">>;

/**
 * How long the app may take to reveal and centre a node the widget selected (its worker's relayout of a
 * big graph included) before its own animations come back anyway.
 */
const SELECT_SETTLE_MS = 5_000;

function animates(renderer: Renderer): renderer is Animating {
  return (
    typeof renderer.animateIntoPositions === "function" &&
    typeof renderer.updateAnimatinProgress === "function" &&
    typeof renderer.webglRendererThreejsService?.render === "function"
  );
}

function centres(service: ThreejsService | undefined): service is Centring {
  return typeof service?.centerViewAt === "function";
}

/** The scenes with a draw asked for the next animation frame, each with the app's own draw of it. */
const drawPending = new Map<ThreejsService, () => void>();
/** Called right after each of those draws (paintedStill() looks at the pixels there). */
const afterDraw = new Set<() => void>();

/** Draws `scene` on the next animation frame, once however many times it is asked before then. */
function drawOnNextFrame(scene: ThreejsService, draw: () => void): void {
  if (drawPending.has(scene)) return;
  drawPending.set(scene, draw);
  requestAnimationFrame(() => {
    drawPending.delete(scene);
    draw();
    for (const listener of afterDraw) listener();
  });
}

/** Calls `listener` after each draw drawOnNextFrame() makes, until the returned function is called. */
function onStillDraw(listener: () => void): () => void {
  afterDraw.add(listener);
  return () => afterDraw.delete(listener);
}

/** How many changes of the widget's are being painted: the app's animations come back when none is. */
let stillHolds = 0;
let stilled: Animating[] = [];
let deferred: ThreejsService[] = [];

/**
 * Until the returned function is called (and every other change's too), every renderer of the app draws
 * the end of its move-into-place animation at once, and its scene at most once an animation frame
 * however many of its effects ask (each asked draw is on the next frame). A renderer the app lacks these
 * members on keeps its animation (the change is still drawn, more slowly).
 */
export function drawMovesStill(): () => void {
  stillHolds++;
  if (stillHolds === 1) {
    stilled = appRenderers()
      .filter(animates)
      .filter((renderer) => !Object.hasOwn(renderer, "animateIntoPositions"));
    // Own properties shadow the app's methods for this renderer and scene only; deleting them restores.
    for (const renderer of stilled) {
      renderer.animateIntoPositions = (progress: Progress = (value) => renderer.updateAnimatinProgress(value)) => {
        progress(1);
        renderer.webglRendererThreejsService.render();
      };
    }
    const scenes = new Set(stilled.map((renderer) => renderer.webglRendererThreejsService));
    deferred = [...scenes].filter((scene) => !Object.hasOwn(scene, "render"));
    for (const scene of deferred) {
      const draw = scene.render.bind(scene);
      scene.render = () => drawOnNextFrame(scene, draw);
    }
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    stillHolds--;
    if (stillHolds > 0) return;
    for (const renderer of stilled) delete (renderer as Partial<Animating>).animateIntoPositions;
    for (const scene of deferred) delete (scene as Partial<ThreejsService>).render;
    stilled = [];
    deferred = [];
  };
}

/**
 * Until the returned function is called, the app's camera goes to where it centres at once instead of
 * gliding there, and `onCentred` runs after each such centring.
 */
function centreAtOnce(onCentred: () => void): () => void {
  const services = new Set(appRenderers().map((renderer) => renderer.webglRendererThreejsService));
  const jumping = [...services].filter(centres).filter((service) => !Object.hasOwn(service, "centerViewAt"));
  for (const service of jumping) {
    const glide = Object.getPrototypeOf(service).centerViewAt as Centring["centerViewAt"];
    service.centerViewAt = (x: number, y: number, scale: number) => {
      glide.call(service, x, y, scale, 0); // a duration of 0 sets the camera at once
      onCentred();
    };
  }
  return () => {
    for (const service of jumping) delete (service as Partial<typeof service>).centerViewAt;
  };
}

/**
 * Makes the widget's `change` to the graph already drawn, drawn still; resolves once the change is on
 * the canvas (shim-repaint.ts). A change that throws gives the animation back and throws: nothing to wait
 * for. The app's effects that react to a change the shim drew itself (its selection effect, after an
 * overlay set from none) run when its change detection does, on an animation frame of its own that can
 * come right after the one that painted the change: the animation comes back only on the frame after
 * that, so they draw still too.
 */
export function paintedStill(change: () => void): Promise<void> {
  const before = canvasLook();
  const restoreMoves = drawMovesStill();
  try {
    change();
  } catch (error) {
    restoreMoves();
    throw error;
  }
  const painted = repainted(before, onStillDraw, canvasLook);
  void painted.then(() => requestAnimationFrame(() => restoreMoves()));
  return painted;
}

/**
 * From each select of the parent's (heard before the app hears it: this runs before the app's scripts)
 * until the app has centred the node and painted it, the user presses, or SELECT_SETTLE_MS pass: the
 * reveal's moves are drawn still and the camera jumps to the node.
 */
export function drawWidgetSelectsStill(trusted: (event: Event) => boolean): void {
  let settle: (() => void) | undefined;
  let latest = 0; // the select being settled: an older select's centring does not settle a newer one
  const settled = () => {
    settle?.();
    settle = undefined;
  };
  window.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as { cmd?: string } | undefined;
    if (event.source !== window.parent || !trusted(event) || data?.cmd !== ME_SELECT_NODE) return;
    settled(); // a newer select takes over
    const select = ++latest;
    const restoreMoves = drawMovesStill();
    const restoreCamera = centreAtOnce(() => void nextPaint().then(() => select === latest && settled()));
    const deadline = setTimeout(settled, SELECT_SETTLE_MS);
    settle = () => {
      clearTimeout(deadline);
      restoreCamera();
      restoreMoves();
    };
  });
  const pressed = (event: Event) => {
    if (event.isTrusted) settled(); // the user's own moves animate as the app does
  };
  for (const type of PRESSES) window.addEventListener(type, pressed, { capture: true, passive: true });
}
