// Inside the Netron frame: a PNG of what the graph shows on screen now (not Netron's export, which
// draws the whole graph at full size: tens of thousands of pixels tall for a transformer). The parent
// keeps it as the picture a saved notebook shows when no kernel is connected.
import { graphCanvas } from "./netron-view";

/** Every rule the frame's own style sheets hold (Netron's, the overlay's): the picture is styled alike. */
function pageCss(): string {
  const rules: string[] = [];
  for (const sheet of [...document.styleSheets]) {
    try {
      for (const rule of [...sheet.cssRules]) rules.push(rule.cssText);
    } catch {
      // A sheet this frame may not read has nothing the graph needs.
    }
  }
  return rules.join("\n");
}

/** Netron's drawn parts (grapher.js): each is kept in the picture only if it shows in the viewport. */
const PARTS = "#clusters > *, #edge-paths > *, #edge-labels > *, #nodes > *";

/**
 * Drops from `clone` the parts of `canvas` outside the viewport: a 10,000-op graph would otherwise be
 * serialised and decoded whole for a picture of the few dozen boxes on screen.
 */
function pruneOffScreen(canvas: SVGSVGElement, clone: SVGSVGElement, width: number, height: number): void {
  const drawn = canvas.querySelectorAll(PARTS);
  const copies = clone.querySelectorAll(PARTS);
  if (drawn.length !== copies.length) return; // not the structure expected: keep everything
  drawn.forEach((part, index) => {
    const box = part.getBoundingClientRect();
    if (box.right < 0 || box.bottom < 0 || box.left > width || box.top > height) copies[index].remove();
  });
}

/** The on-screen part of Netron's graph as a PNG of the frame's viewport size. */
export async function viewportPicture(): Promise<Blob> {
  const canvas = graphCanvas();
  if (!(canvas instanceof SVGSVGElement)) throw new Error("no graph is drawn");
  const box = canvas.getBoundingClientRect();
  const width = Math.max(1, Math.round(document.documentElement.clientWidth));
  const height = Math.max(1, Math.round(document.documentElement.clientHeight));
  // The graph's <svg> inside one of the viewport's size, offset as it is scrolled: only what shows is drawn.
  const graph = canvas.cloneNode(true) as SVGSVGElement;
  graph.querySelector("#edge-paths-hit-test")?.remove(); // invisible copies of the edges
  pruneOffScreen(canvas, graph, width, height);
  graph.setAttribute("x", String(box.left));
  graph.setAttribute("y", String(box.top));
  graph.setAttribute("width", String(box.width));
  graph.setAttribute("height", String(box.height));
  graph.removeAttribute("style");
  const SVG = "http://www.w3.org/2000/svg";
  const outer = document.createElementNS(SVG, "svg");
  outer.setAttribute("xmlns", SVG);
  outer.setAttribute("width", String(width));
  outer.setAttribute("height", String(height));
  const style = document.createElementNS(SVG, "style");
  style.textContent = pageCss();
  const background = document.createElementNS(SVG, "rect");
  background.setAttribute("width", "100%");
  background.setAttribute("height", "100%");
  background.setAttribute("fill", getComputedStyle(document.body).backgroundColor || "#fff");
  outer.append(style, background, graph);
  const url = URL.createObjectURL(new Blob([new XMLSerializer().serializeToString(outer)], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const raster = document.createElement("canvas");
    raster.width = width;
    raster.height = height;
    raster.getContext("2d")?.drawImage(image, 0, 0);
    return await new Promise<Blob>((resolve, reject) =>
      raster.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("the picture could not be encoded"))), "image/png"),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}
