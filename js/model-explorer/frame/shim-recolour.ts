// Inside the Model Explorer frame (frame-shim.ts): an overlay switch recolours the graph already drawn.
// The app's own "Add per-node data" adds a run of node data to its node-data service and selects it
// for the pane; this does the same through that service (app-internals.ts), so the layout, zoom,
// expanded layers and selection stay. Where it can, a pane's run is set, switched or cleared in place,
// drawn once (shim-runs-in-place.ts); otherwise the panes' earlier runs are deleted and the new one added,
// the app's own route. A baseline's facts are set on the nodes as the app's own addNodeAttributes sets
// them, and removed from them when it is cleared.
import { appRenderer, appRenderers, CLEARED_ATTRIBUTE, type ModelGraph, UPDATE_NODE_ATTRIBUTES_EVENT } from "./app-internals";
import { type AttributeChanges, mergeAttrs, mergeAttrsObject } from "../node-attributes";
import { SHIM_RECOLOUR, SHIM_RECOLOURED, type ShimPost, type ShimRecolourRequest } from "../protocol";
import { addedInPlace, clearedInPlace, restyledInPlace } from "./shim-runs-in-place";
import { paintedStill } from "./shim-still";

/** How a pane was recoloured: its run set, switched or cleared in place, or its runs deleted and the new one added. */
export type RecolourRoute = "in-place" | "replaced";

/**
 * Replaces each pane's runs of node data with the request's file for it (none: no overlay); returns
 * each pane's route.
 */
export function replaceRuns(request: ShimRecolourRequest): RecolourRoute[] {
  const renderer = appRenderer();
  const service = renderer?.nodeDataProviderExtensionService;
  if (!renderer || !service || typeof service.addRun !== "function" || typeof service.deleteRun !== "function")
    throw new Error("this Model Explorer has no node-data service on window.me_test");
  const routes: RecolourRoute[] = [];
  for (let pane = 0; pane < request.panes; pane++) {
    const graph = renderer.appService.getModelGraphFromPaneIndex(pane);
    if (!graph) throw new Error(`pane ${pane} shows no graph yet`);
    const files = request.files.filter((candidate) => candidate.pane === pane);
    const runId = `tlw-${request.id}-${pane}`;
    const target = { renderer, service, pane, graph };
    const inPlace =
      files.length === 1
        ? restyledInPlace(target, files[0], runId) || addedInPlace(target, files[0], runId)
        : files.length === 0 && clearedInPlace(target);
    if (inPlace) {
      routes.push("in-place");
      continue;
    }
    for (const [id, run] of Object.entries(service.runs())) if (run.collectionId === graph.collectionLabel) service.deleteRun(id);
    // Added with its data, the run is selected for every pane that shows this graph.
    for (const file of files) service.addRun(runId, file.name, "", graph, service.getNodeDataProviderData(file.json, graph));
    routes.push("replaced");
  }
  return routes;
}

/**
 * Sets `attributes` (null: removes them) on the nodes of every copy of their graph the app keeps: the
 * collection it loaded (a graph picked later in its menu), each pane's graph (its info panel), each
 * renderer's and the layout worker's (what an expand hands back). Nothing is laid out again.
 */
export function setAttributes(attributes: AttributeChanges, panes: number): void {
  if (Object.keys(attributes).length === 0) return;
  const renderer = appRenderer();
  const app = renderer?.appService;
  if (!renderer || typeof app?.curGraphCollections !== "function" || typeof renderer.workerService?.worker?.postMessage !== "function")
    throw new Error("this Model Explorer has no graph collections or layout worker on window.me_test");
  for (const collection of app.curGraphCollections())
    for (const graph of collection.graphs) {
      const ofGraph = attributes[graph.id];
      if (!ofGraph) continue;
      for (const node of graph.nodes) {
        const set = ofGraph[node.id];
        if (!set) continue;
        node.attrs = node.attrs ?? [];
        mergeAttrs(node.attrs, set);
      }
    }
  const drawn = new Set<ModelGraph>();
  for (let pane = 0; pane < panes; pane++) {
    const graph = app.getModelGraphFromPaneIndex(pane);
    if (!graph) throw new Error(`pane ${pane} shows no graph yet`);
    drawn.add(graph);
    const ofGraph = attributes[graph.id] ?? {};
    const paneId = app.panes()[pane]?.id;
    for (const [nodeId, attrs] of Object.entries(ofGraph)) {
      if (!graph.nodesById[nodeId]) continue;
      // The worker merges, as the app's addNodeAttributes has it do; its copy is keyed by pane.
      const merged: Record<string, string | typeof CLEARED_ATTRIBUTE> = {};
      for (const key in attrs) merged[key] = attrs[key] ?? CLEARED_ATTRIBUTE;
      renderer.workerService.worker.postMessage({
        eventType: UPDATE_NODE_ATTRIBUTES_EVENT,
        modelGraphId: graph.id,
        nodeId,
        attrs: merged,
        paneId,
      });
    }
  }
  for (const other of appRenderers()) if (other.curModelGraph) drawn.add(other.curModelGraph);
  for (const graph of drawn)
    for (const [nodeId, attrs] of Object.entries(attributes[graph.id] ?? {})) {
      const node = graph.nodesById[nodeId];
      if (!node) continue;
      node.attrs = node.attrs ?? {};
      mergeAttrsObject(node.attrs, attrs);
    }
}

/** Answers SHIM_RECOLOUR once the canvases show the new colours, or have stayed the same for a while. */
export function answerRecolour(post: ShimPost, trusted: (event: Event) => boolean): void {
  window.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as ShimRecolourRequest | undefined;
    if (event.source !== window.parent || !trusted(event) || data?.cmd !== SHIM_RECOLOUR) return;
    const started = performance.now();
    let painted: Promise<void>;
    try {
      // The app's route (a run added or deleted) redraws the scene.
      painted = paintedStill(() => {
        setAttributes(JSON.parse(data.attributes || "{}") as AttributeChanges, data.panes);
        replaceRuns(data);
      });
    } catch (error) {
      post({ cmd: SHIM_RECOLOURED, id: data.id, error: String(error instanceof Error ? error.message : error) });
      return;
    }
    void painted.then(() => post({ cmd: SHIM_RECOLOURED, id: data.id, ms: performance.now() - started }));
  });
}
