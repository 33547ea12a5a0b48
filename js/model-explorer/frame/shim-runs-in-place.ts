// Inside the Model Explorer frame: a pane's run of node data changed without the app's own redraw. The
// app's route (addRun, deleteRun) publishes a new list of panes and hands the renderer another results
// object; the renderer then redraws its whole scene, animated, and its selection effect redraws the
// node styles and the highlight layers: a dozen full draws on a graph with opened layers, each a frame
// of software raster (docs/recolour-opened-graph.md). Each route here leaves the renderer's effects
// nothing new to react to and draws the scene once:
// - restyled: the pane shows a run of ours; the same results object is filled anew (with the app's
//   colouring of the file, kept for the files shown lately: shim-coloured-files.ts).
// - added: the pane shows no run (an overlay set from none); the renderer is told the new results are
//   the ones it last drew, before they are published (it skips the whole redraw, animated, of the app's route).
// - cleared: the pane shows a run of ours and the overlay is turned off; likewise, with no results.
// Each route returns false, touching nothing, when the app's own route must run instead.
import type { ModelGraph, NodeDataRun, NodeDataService, Renderer } from "./app-internals";
import { appRenderers } from "./app-internals";
import type { RecolourFile } from "../protocol";
import { type ColouredFile, colouredFiles } from "./shim-coloured-files";

/** The prefix of the app's "view on node" item that writes a run's values on the nodes. */
const NODE_DATA_ON_NODE = "Node data provider: ";

/** The runs of ours a pane's recolour works on (ids of the form tlw-<request>-<pane>). */
const OUR_RUN = /^tlw-\d+-\d+$/;

/** The pane a recolour changes: the app (through its first renderer), its node-data service, the graph shown. */
export interface PaneTarget {
  renderer: Renderer;
  service: NodeDataService;
  pane: number;
  graph: ModelGraph;
}

/** A renderer with every member the in-place routes call. */
type RestylableRenderer = Renderer &
  Required<Pick<Renderer, "webglRendererNdpService" | "webglRendererThreejsService" | "updateNodesStyles">>;

/** A pane the in-place routes may change: its id, and the renderers drawing it (all restylable). */
interface PaneInPlace {
  paneId: string;
  drawing: RestylableRenderer[];
}

/**
 * The pane, when a change of its run can be drawn in place: the service has the members used here, no
 * other pane shows the same graph, every renderer drawing it can restyle, and none writes a run's values
 * on the nodes ("view on node": only a full redraw writes them). Null otherwise.
 */
function paneInPlace({ renderer, service, pane, graph }: PaneTarget): PaneInPlace | null {
  const app = renderer.appService;
  const paneId = app.panes()[pane]?.id;
  if (!paneId || typeof service.processNodeDataProviderDataForGraph !== "function" || typeof service.runs.set !== "function") return null;
  const sameGraph = app.panes().filter((other) => other.modelGraph?.collectionLabel === graph.collectionLabel);
  if (sameGraph.length !== 1) return null;
  const drawing = appRenderers().filter((candidate) => candidate.paneId === paneId);
  if (drawing.length === 0 || !drawing.every(canRestyle)) return null;
  if (drawing.some((candidate) => showsValuesOnNodes(candidate, paneId))) return null;
  return { paneId, drawing };
}

/** The collection's runs, when they are one run of ours, selected for the pane. */
function ourSelectedRun({ renderer, service, pane, graph }: PaneTarget): NodeDataRun | null {
  const ofCollection = Object.values(service.runs()).filter((run) => run.collectionId === graph.collectionLabel);
  const run = ofCollection[0];
  if (ofCollection.length !== 1 || !OUR_RUN.test(run.runId)) return null;
  return renderer.appService.panes()[pane]?.selectedNodeDataProviderRunId === run.runId ? run : null;
}

/** The file as the app's own upload reads it, for the pane's graph. */
function readFile({ service, graph }: PaneTarget, file: RecolourFile): NonNullable<NodeDataRun["nodeDataProviderData"]> {
  return service.getNodeDataProviderData(file.json, graph) as NonNullable<NodeDataRun["nodeDataProviderData"]>;
}

/** The app's own colouring of `data` for the pane's graph, kept under `key` for a later switch back to it. */
function colour({ service, graph }: PaneTarget, key: string, data: ColouredFile["data"]): ColouredFile {
  const coloured = { data, results: service.processNodeDataProviderDataForGraph(graph, data) };
  colouredFiles.keep(graph, key, coloured);
  return coloured;
}

/** Whether a parsed file has the app lay the graph out again (summaries under the expanded layers). */
function laysOut(data: NodeDataRun["nodeDataProviderData"], graph: ModelGraph): boolean {
  return data?.[graph.id]?.showExpandedSummaryOnGroupNode ?? false;
}

/**
 * Restyles the pane's run of ours with `file` in place: the same results object, filled anew with the
 * app's own colouring of the file (kept from an earlier switch, or made now; the renderer's effects
 * compare the object by identity and do not fire: another object would wake its selection effect, a
 * few more draws), the run renamed `runId`. False, nothing touched, when the pane shows no run of ours
 * or the file is laid out otherwise.
 */
export function restyledInPlace(target: PaneTarget, file: RecolourFile, runId: string): boolean {
  const { service, graph } = target;
  const place = paneInPlace(target);
  const run = place && ourSelectedRun(target);
  const results = run?.results?.[graph.id];
  if (!place || !run || !results || typeof results !== "object") return false;
  const kept = colouredFiles.get(graph, file.key);
  const data = kept?.data ?? readFile(target, file);
  if (laysOut(data, graph) !== laysOut(run.nodeDataProviderData, graph)) return false;

  const coloured = kept ?? colour(target, file.key, data);
  // Filled with the colouring's entries: the object kept is never the one drawn, which is filled anew.
  for (const key in results) if (!(key in coloured.results)) delete results[key];
  Object.assign(results, coloured.results);
  // Another graph of the collection (picked in the app's menu) is coloured again when shown.
  for (const id of Object.keys(run.results ?? {})) if (id !== graph.id) delete run.results?.[id];
  run.nodeDataProviderData = data;
  run.runName = file.name;
  // A new id: the info panel's node-data summary keys its rows on the runs' ids (with their state and
  // result counts), so under the old id it would keep the old overlay's rows.
  const runs = { ...service.runs() };
  delete runs[run.runId];
  run.runId = runId;
  runs[runId] = run;
  publish(target, runs, runId);
  drawOnce(place.drawing);
  return true;
}

/**
 * Adds `file` as the pane's run `runId` when the pane shows no run (an overlay set from none): the run
 * the app's addRun would make, with the results the app's own colouring computes, which each renderer
 * drawing the pane is told it drew last. False, nothing touched, when the collection has runs already,
 * the file is laid out (summaries under the expanded layers) or a renderer does not keep its last results.
 */
export function addedInPlace(target: PaneTarget, file: RecolourFile, runId: string): boolean {
  const { service, graph } = target;
  const place = paneInPlace(target);
  if (!place?.drawing.every(keepsLastResults)) return false;
  if (Object.values(service.runs()).some((run) => run.collectionId === graph.collectionLabel)) return false;
  const kept = colouredFiles.get(graph, file.key);
  const data = kept?.data ?? readFile(target, file);
  if (laysOut(data, graph)) return false;

  const coloured = kept ?? colour(target, file.key, data);
  const results = { ...coloured.results }; // drawn, so filled anew by a later switch: not the one kept
  const run: NodeDataRun = {
    runId,
    runName: file.name,
    done: true,
    results: { [graph.id]: results },
    extensionId: "",
    collectionId: graph.collectionLabel,
    nodeDataProviderData: data,
  };
  for (const each of place.drawing) {
    each.prevNodeDataProviderData = results;
    each.prevNodeDataProviderRun = run;
  }
  publish(target, { ...service.runs(), [runId]: run }, runId);
  // With no run selected, the renderer's run (a computed signal) read the list of panes only, not the
  // runs: it sees the new run once the panes are published anew. That also wakes the renderer's selection
  // effect, which draws the node styles again (still, as the widget's selects are).
  target.renderer.appService.setSelectedNodeDataProviderRunId(place.paneId, runId);
  drawOnce(place.drawing);
  return true;
}

/**
 * Removes the pane's run of ours (the overlay turned off), each renderer drawing the pane told it drew
 * no results last. False, nothing touched, when the pane shows other runs than one of ours, its run is
 * laid out (the app lays the graph out again without it) or a renderer does not keep its last results.
 */
export function clearedInPlace(target: PaneTarget): boolean {
  const { service, graph } = target;
  const place = paneInPlace(target);
  const run = place && ourSelectedRun(target);
  if (!place || !run || !place.drawing.every(keepsLastResults) || laysOut(run.nodeDataProviderData, graph)) return false;
  for (const each of place.drawing) {
    each.prevNodeDataProviderData = undefined;
    each.prevNodeDataProviderRun = undefined;
  }
  const runs = { ...service.runs() };
  delete runs[run.runId];
  publish(target, runs, undefined);
  drawOnce(place.drawing);
  return true;
}

/**
 * Selects `runId` for the pane on the pane object itself, then publishes `runs`. The app's
 * setSelectedNodeDataProviderRunId would publish a new list of panes, which wakes the renderer's
 * selection effect (it redraws the node styles and animates the highlight layers). The info panel, its
 * node-data summary and the renderers read the runs again.
 */
function publish({ renderer, service, pane }: PaneTarget, runs: Record<string, NodeDataRun>, runId: string | undefined): void {
  const shown = renderer.appService.panes()[pane];
  if (shown) shown.selectedNodeDataProviderRunId = runId;
  service.runs.set(runs);
}

/** Each renderer draws the value bars, the nodes' colours and the scene once. */
function drawOnce(drawing: RestylableRenderer[]): void {
  for (const each of drawing) {
    const ndp = each.webglRendererNdpService;
    const three = each.webglRendererThreejsService;
    three.removeFromScene(ndp.nodeDataProviderDistributionBars.mesh);
    three.removeFromScene(ndp.nodeDataProviderSummaryTexts.mesh);
    ndp.renderNodeDataProviderDistributionBars(); // the value bars under the collapsed layers (none without a run)
    each.updateNodesStyles(); // restores the nodes' colours, then applies the run's
    three.render(); // one draw
  }
}

/** The renderer has every member the in-place routes call. */
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

/** The renderer keeps the results it last drew (its redraw effect compares new results with them). */
function keepsLastResults(renderer: Renderer): boolean {
  return "prevNodeDataProviderData" in renderer && "prevNodeDataProviderRun" in renderer;
}

/** A run's values are written on the pane's nodes ("view on node"), which only a full redraw updates. */
function showsValuesOnNodes(renderer: Renderer, paneId: string): boolean {
  const items = renderer.appService.getShowOnNodeItemTypes(paneId, renderer.rendererId ?? paneId);
  return Object.entries(items).some(([type, item]) => type.startsWith(NODE_DATA_ON_NODE) && item?.selected);
}
