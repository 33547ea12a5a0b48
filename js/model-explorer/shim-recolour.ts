// Inside the Model Explorer frame (frame-shim.ts): an overlay switch recolours the graph already drawn.
// The app's own "Add per-node data" adds a run of node data to its node-data service and selects it
// for the pane; this does the same through that service, after deleting the panes' earlier runs, so
// the layout, zoom, expanded layers and selection stay. The app exposes its renderers (and through
// them its services) on window.me_test for its own tests; tests/test_vendor_contract.py pins every
// name used here against the installed app.
import { SHIM_RECOLOUR, SHIM_RECOLOURED, type ShimPost, type ShimRecolourRequest } from "./protocol";
import { canvasLook, repainted } from "./shim-repaint";

/** The parts of the app's model graph this reads. */
interface ModelGraph {
  id: string;
  collectionLabel: string;
}

/** The app's node-data service (its runs of per-node data, one selected per pane). */
interface NodeDataService {
  runs(): Record<string, { collectionId: string }>;
  addRun(runId: string, runName: string, extensionId: string, modelGraph: ModelGraph, data: unknown): void;
  deleteRun(runId: string): void;
  /** Parses a node data file's text as the app's own upload does (one graph's, or graph id -> one graph's). */
  getNodeDataProviderData(text: string, modelGraph: ModelGraph): unknown;
}

/** One of the app's renderers, as window.me_test lists them (by pane index). */
interface Renderer {
  appService: { getModelGraphFromPaneIndex(pane: number): ModelGraph | undefined };
  nodeDataProviderExtensionService: NodeDataService;
}

declare global {
  interface Window {
    me_test?: { renderers?: Record<string, Renderer | undefined> };
  }
}

/** Replaces each pane's runs of node data with the request's file for it (none: no overlay). */
export function replaceRuns(request: ShimRecolourRequest): void {
  const renderer = window.me_test?.renderers?.["0"];
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
