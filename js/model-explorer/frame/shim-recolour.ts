// Inside the Model Explorer frame (frame-shim.ts): an overlay switch recolours the graph already drawn.
// The app's own "Add per-node data" adds a run of node data to its node-data service and selects it
// for the pane; this does the same through that service, after deleting the panes' earlier runs, so
// the layout, zoom, expanded layers and selection stay (the service through app-internals.ts). When a
// pane already shows a run of ours and only the values and colours change, the run is restyled in
// place instead: the renderer redraws its whole scene, animated, on a new results object (a dozen
// full draws on a graph with opened layers, each costing up to a second in software WebGL), so the
// same object is filled anew and the canvas drawn once (docs/recolour-opened-graph.md). A baseline's
// facts are set on the nodes as the app's own addNodeAttributes sets them, and removed from them when
// it is cleared.
import {
  appRenderer,
  appRenderers,
  CLEARED_ATTRIBUTE,
  type ModelGraph,
  type NodeDataRun,
  type NodeDataService,
  type Renderer,
  UPDATE_NODE_ATTRIBUTES_EVENT,
} from "./app-internals";
import { type AttributeChanges, mergedAttrs } from "../node-attributes";
import { type RecolourFile, SHIM_RECOLOUR, SHIM_RECOLOURED, type ShimPost, type ShimRecolourRequest } from "../protocol";
import { paintedStill } from "./shim-still";

/** How a pane was recoloured: its run restyled in place, or its runs deleted and the new one added. */
export type RecolourRoute = "in-place" | "replaced";

/** The prefix of the app's "view on node" item that writes a run's values on the nodes. */
const NODE_DATA_ON_NODE = "Node data provider: ";

/** The runs of ours a pane's recolour works on (ids of the form tlw-<request>-<pane>). */
const OUR_RUN = /^tlw-\d+-\d+$/;

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
    if (files.length === 1 && restyledInPlace(renderer, service, pane, graph, files[0], runId)) {
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
 * Restyles the pane's run of ours with `file` in place, when that is all the change needs; false (and
 * nothing touched) when the app's own route must run: no run of ours selected for the pane yet (the
 * first overlay, a switch from none), other runs of its collection, another pane on the same graph, the
 * file laid out otherwise (showExpandedSummaryOnGroupNode: the app lays the graph out again), a run's
 * values written on the nodes ("view on node": only a full redraw writes them), or a renderer without
 * the members used here.
 */
function restyledInPlace(
  renderer: Renderer,
  service: NodeDataService,
  pane: number,
  graph: ModelGraph,
  file: RecolourFile,
  runId: string,
): boolean {
  const app = renderer.appService;
  const paneId = app.panes()[pane]?.id;
  if (!paneId || typeof service.processNodeDataProviderDataForGraph !== "function" || typeof service.runs.set !== "function") return false;
  const ofCollection = Object.values(service.runs()).filter((run) => run.collectionId === graph.collectionLabel);
  const run = ofCollection[0];
  if (ofCollection.length !== 1 || !OUR_RUN.test(run.runId) || app.panes()[pane]?.selectedNodeDataProviderRunId !== run.runId) return false;
  const results = run.results?.[graph.id];
  if (!results || typeof results !== "object") return false;
  const sameGraph = app.panes().filter((other) => other.modelGraph?.collectionLabel === graph.collectionLabel);
  if (sameGraph.length !== 1) return false;
  const drawing = appRenderers().filter((candidate) => candidate.paneId === paneId);
  if (drawing.length === 0 || !drawing.every(canRestyle)) return false;
  if (drawing.some((candidate) => showsValuesOnNodes(candidate, paneId))) return false;
  const data = service.getNodeDataProviderData(file.json, graph) as NonNullable<NodeDataRun["nodeDataProviderData"]>;
  const layout = (of: NodeDataRun["nodeDataProviderData"]) => of?.[graph.id]?.showExpandedSummaryOnGroupNode ?? false;
  if (layout(data) !== layout(run.nodeDataProviderData)) return false;

  // The same results object, filled anew by the app's own colouring: the renderer's effects compare it
  // by identity and do not fire (they would redraw the whole scene, animated).
  const fresh = service.processNodeDataProviderDataForGraph(graph, data);
  for (const key of Object.keys(results)) delete results[key];
  Object.assign(results, fresh);
  // Another graph of the collection (picked in the app's menu) is coloured again when shown.
  for (const id of Object.keys(run.results ?? {})) if (id !== graph.id) delete run.results?.[id];
  run.nodeDataProviderData = data;
  run.runName = file.name;
  // A new id: the info panel's node-data summary keys its rows on the runs' ids (with their state and
  // result counts), so under the old id it would keep the old overlay's rows. The pane selects the same
  // object under its new id, set on the pane itself: the app's setSelectedNodeDataProviderRunId would
  // publish a new list of panes, which wakes the renderer's selection effect (it redraws the node styles
  // and animates the highlight layers: several full draws of an opened graph). With the runs published
  // anew, what the renderer computes from them is the same object, so none of its effects runs again.
  const runs = { ...service.runs() };
  delete runs[run.runId];
  run.runId = runId;
  runs[runId] = run;
  const shown = app.panes()[pane];
  if (shown) shown.selectedNodeDataProviderRunId = runId;
  service.runs.set(runs); // the info panel and the node-data summary read the runs again

  for (const each of drawing) {
    const ndp = each.webglRendererNdpService;
    const three = each.webglRendererThreejsService;
    three.removeFromScene(ndp.nodeDataProviderDistributionBars.mesh);
    three.removeFromScene(ndp.nodeDataProviderSummaryTexts.mesh);
    ndp.renderNodeDataProviderDistributionBars(); // the value bars under the collapsed layers
    each.updateNodesStyles(); // restores the nodes' colours, then applies the new ones
    three.render(); // one draw
  }
  return true;
}

/** A renderer with every member the in-place route calls. */
type RestylableRenderer = Renderer &
  Required<Pick<Renderer, "webglRendererNdpService" | "webglRendererThreejsService" | "updateNodesStyles">>;

/** The renderer has every member the in-place route calls. */
function canRestyle(renderer: Renderer): renderer is RestylableRenderer {
  const ndp = renderer.webglRendererNdpService;
  const three = renderer.webglRendererThreejsService;
  return (
    typeof renderer.updateNodesStyles === "function" &&
    typeof ndp?.renderNodeDataProviderDistributionBars === "function" &&
    !!ndp.nodeDataProviderDistributionBars &&
    !!ndp.nodeDataProviderSummaryTexts &&
    typeof three?.removeFromScene === "function" &&
    typeof three.render === "function" &&
    typeof renderer.appService.getShowOnNodeItemTypes === "function"
  );
}

/** A run's values are written on the pane's nodes ("view on node"), which only a full redraw updates. */
function showsValuesOnNodes(renderer: Renderer, paneId: string): boolean {
  const items = renderer.appService.getShowOnNodeItemTypes(paneId, renderer.rendererId ?? paneId);
  return Object.entries(items).some(([type, item]) => type.startsWith(NODE_DATA_ON_NODE) && item?.selected);
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
        if (set) node.attrs = mergedAttrs(node.attrs ?? [], set);
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
      const merged = Object.fromEntries(Object.entries(attrs).map(([key, value]) => [key, value ?? CLEARED_ATTRIBUTE]));
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
      const kept = Object.entries(node.attrs ?? {}).filter(([key]) => !(key in attrs));
      const set = Object.entries(attrs).filter(([, value]) => value !== null);
      node.attrs = Object.fromEntries([...kept, ...set]);
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
        setAttributes(data.attributes ?? {}, data.panes);
        replaceRuns(data);
      });
    } catch (error) {
      post({ cmd: SHIM_RECOLOURED, id: data.id, error: String(error instanceof Error ? error.message : error) });
      return;
    }
    void painted.then(() => post({ cmd: SHIM_RECOLOURED, id: data.id, ms: performance.now() - started }));
  });
}
