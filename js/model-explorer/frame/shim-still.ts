// Inside the Model Explorer frame: a change the widget makes to the graph already drawn (marks, an overlay
// set or cleared through the app's route, a baseline's facts) moves no node, yet the app repaints it
// through its move-into-place animation: the whole scene drawn on every animation frame for 200 ms, once
// from each of the renderer's effects that reacts (the scene, the selection's inputs and outputs, the
// identical layers). A highlight took 22 full draws, each up to a second of software WebGL on an opened
// graph (docs/recolour-opened-graph.md). While the widget's change is painted, each renderer draws the
// end state of such an animation once instead; the app's own moves (an expand, a relayout) animate as
// before outside that time. Both of the widget's changes (shim-marks.ts, shim-recolour.ts) are made
// through paintedStill.
import { appRenderers, type Renderer } from "./app-internals";
import { canvasLook, repainted } from "./shim-repaint";

/** Sets the animation's progress (0 to 1) on the renderer's meshes; the app's default sets all of them. */
type Progress = (progress: number) => void;

/** A renderer with what the still draw calls: its animation, its progress setter and its scene's draw. */
type Animating = Renderer & Required<Pick<Renderer, "animateIntoPositions" | "updateAnimatinProgress" | "webglRendererThreejsService">>;

function animates(renderer: Renderer): renderer is Animating {
  return (
    typeof renderer.animateIntoPositions === "function" &&
    typeof renderer.updateAnimatinProgress === "function" &&
    typeof renderer.webglRendererThreejsService?.render === "function"
  );
}

/**
 * Until the returned function is called, every renderer of the app draws the end of its move-into-place
 * animation at once, in one draw. A renderer the app lacks these members on keeps its animation (the
 * change is still drawn, more slowly).
 */
export function drawMovesStill(): () => void {
  const stilled = appRenderers()
    .filter(animates)
    .filter((renderer) => !Object.hasOwn(renderer, "animateIntoPositions"));
  for (const renderer of stilled) {
    // An own property shadows the app's method for this renderer only; deleting it restores the method.
    renderer.animateIntoPositions = (progress: Progress = (value) => renderer.updateAnimatinProgress(value)) => {
      progress(1);
      renderer.webglRendererThreejsService.render();
    };
  }
  return () => {
    for (const renderer of stilled) delete (renderer as Partial<Animating>).animateIntoPositions;
  };
}

/**
 * Makes the widget's `change` to the graph already drawn, drawn still; resolves once the change is on
 * the canvas (shim-repaint.ts). A change that throws gives the animation back and throws: nothing to wait
 * for.
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
  return repainted(before).finally(restoreMoves);
}
