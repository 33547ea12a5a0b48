// Inside the Model Explorer frame (frame-shim.ts): the app's hit boxes are not drawn.
//
// For the pointer's hits on nodes and their icons, the app keeps beside each instanced mesh of boxes it
// draws a mesh of the same boxes in a material that draws nothing (fully transparent), and adds both to
// the scene, so three.js shades every pixel of the invisible boxes on every frame. On an opened graph
// (its layers' big nested boxes) in software WebGL a frame took 69-75 ms with them and 56-60 ms without,
// for the same picture (docs/benchmarks.md): every hover, select, expand and recolour paid it. The shim
// hides such materials from the renderer as their meshes are added to the scene; the app's raycaster still
// hits the boxes (three.js tests an object's layers, not its visibility).
// tests/test_model_explorer_contract.py pins what this relies on.
import type { Renderer, SceneMesh } from "./app-internals";

/** A mesh whose material can put no pixel on the canvas: a plain colour, fully transparent, no texture. */
function drawsNothing(mesh: SceneMesh | undefined): boolean {
  const material = mesh?.material;
  return material?.type === "MeshBasicMaterial" && material.transparent === true && material.opacity === 0 && !material.map;
}

function hideIfDrawsNothing(mesh: SceneMesh | undefined): void {
  if (mesh?.material && drawsNothing(mesh)) mesh.material.visible = false; // three.js draws no invisible material
}

/** Hides what the renderer's scene holds that draws nothing, and what its service adds from now on. */
function skipHitBoxes(renderer: Renderer): void {
  const service = renderer.webglRendererThreejsService;
  if (!service || typeof service.addToScene !== "function" || Object.hasOwn(service, "addToScene")) return;
  for (const mesh of service.scene?.children ?? []) hideIfDrawsNothing(mesh);
  const add = service.addToScene.bind(service);
  service.addToScene = (mesh) => {
    hideIfDrawsNothing(mesh);
    add(mesh);
  };
}

/**
 * Puts the app's test handle on the window before the app does (it keeps one it finds), so that each
 * renderer is seen as it lists itself. Installed before the app's first script.
 */
export function drawNoHitBoxes(): void {
  const renderers = new Proxy({} as Record<string, Renderer | undefined>, {
    set(target, key, value: Renderer | undefined) {
      target[key as string] = value;
      if (value) skipHitBoxes(value);
      return true;
    },
  });
  window.me_test = { renderers };
}
