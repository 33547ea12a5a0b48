// Inside the Model Explorer frame (frame-shim.ts): an overlay switch recolours the graph already drawn.
// The app's own "Add per-node data" adds a run of node data to its node-data service and selects it
// for the pane; this does the same through that service, after deleting the panes' earlier runs, so
// the layout, zoom, expanded layers and selection stay (the service through app-internals.ts).
import { appRenderer } from "./app-internals";
import { SHIM_RECOLOUR, SHIM_RECOLOURED, type ShimPost, type ShimRecolourRequest } from "./protocol";
import { canvasLook, repainted } from "./shim-repaint";

/** Replaces each pane's runs of node data with the request's file for it (none: no overlay). */
export function replaceRuns(request: ShimRecolourRequest): void {
  const renderer = appRenderer();
  const service = renderer?.nodeDataProviderExtensionService;
  if (!renderer || !service || typeof service.addRun !== "function" || typeof service.deleteRun !== "function")
    throw new Error("this Model Explorer has no node-data service on window.me_test");
  for (let pane = 0; pane < request.panes; pane++) {
    const graph = renderer.appService.getModelGraphFromPaneIndex(pane);
    if (!graph) throw new Error(`pane ${pane} shows no graph yet`);
    for (const [runId, run] of Object.entries(service.runs())) if (run.collectionId === graph.collectionLabel) service.deleteRun(runId);
    for (const file of request.files.filter((candidate) => candidate.pane === pane)) {
      // Added with its data, the run is selected for every pane that shows this graph.
      service.addRun(`tlw-${request.id}-${pane}`, file.name, "", graph, service.getNodeDataProviderData(file.json, graph));
    }
  }
}

/** Answers SHIM_RECOLOUR once the canvases show the new colours, or have stayed the same for a while. */
export function answerRecolour(post: ShimPost, trusted: (event: Event) => boolean): void {
  window.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as ShimRecolourRequest | undefined;
    if (event.source !== window.parent || !trusted(event) || data?.cmd !== SHIM_RECOLOUR) return;
    const started = performance.now();
    const before = canvasLook();
    try {
      replaceRuns(data);
    } catch (error) {
      post({ cmd: SHIM_RECOLOURED, id: data.id, error: String(error instanceof Error ? error.message : error) });
      return;
    }
    void repainted(before).then(() => post({ cmd: SHIM_RECOLOURED, id: data.id, ms: performance.now() - started }));
  });
}
