// Model Explorer internals: everything the frame's shim touches of the app's objects, its node-data
// service and its graphs' node attributes (shim-recolour.ts), its node styler (shim-marks.ts) and the
// meshes it adds to its scene (shim-hit-boxes.ts), reached through the renderers the app lists on window.me_test for its own tests. tests/test_model_explorer_contract.py pins every name used
// here against the installed app; check this file when the ai-edge-model-explorer pin moves.

/** The parts of the app's model graph (a graph as processed for a pane) this reads. */
export interface ModelGraph {
  id: string;
  collectionLabel: string;
  /** A node's attributes, by key, the layer path that holds it ("a/b/c") and its label (its box's title). */
  nodesById: Record<string, { attrs?: Record<string, unknown>; namespace?: string; label?: string } | undefined>;
}

/** A graph of a collection as the app loaded it (what it processes when the user picks the graph). */
export interface CollectionGraph {
  id: string;
  nodes: { id: string; label?: string; attrs?: { key: string; value: unknown }[] }[];
}

/**
 * The message that has the app's layout worker add attributes to its copy of a pane's graph (the copy
 * an expand or a relayout hands back): the app's own addNodeAttributes sends it. The worker merges
 * them into the node's attributes; nothing removes one.
 */
export const UPDATE_NODE_ATTRIBUTES_EVENT = 12;

/**
 * What the worker's copy of a node is given for an attribute removed: the worker only merges, so the key
 * stays, with a value every reader of that copy skips (they read strings, and of other values only
 * the app's own typed ones; null would throw where they read its type). The info panel reads the
 * pane's graph, where the key is really removed.
 */
export const CLEARED_ATTRIBUTE = { type: "tlw-cleared" } as const;

/** A run of per-node data in the app's node-data service (what its "Add per-node data" adds). */
export interface NodeDataRun {
  runId: string;
  runName: string;
  collectionId: string;
  done?: boolean;
  /** The extension that computed it ("" for a file added from the page), as addRun sets it. */
  extensionId?: string;
  /** The file as parsed (graph id -> its values and how to colour them). */
  nodeDataProviderData?: Record<string, { showExpandedSummaryOnGroupNode?: boolean } | undefined>;
  /**
   * Graph id -> node id -> value and colours, computed per graph as a pane shows it. The renderer
   * redraws everything when the selected run's object for its graph is another object (not when it is
   * filled anew).
   */
  results?: Record<string, Record<string, unknown>>;
}

/** The app's node-data service (its runs of per-node data, one selected per pane). */
export interface NodeDataService {
  /** A signal: the renderers, the info panel and its node-data summary read it. */
  runs: { (): Record<string, NodeDataRun>; set(runs: Record<string, NodeDataRun>): void };
  addRun(runId: string, runName: string, extensionId: string, modelGraph: ModelGraph, data: unknown): void;
  deleteRun(runId: string): void;
  /** Parses a node data file's text as the app's own upload does (one graph's, or graph id -> one graph's). */
  getNodeDataProviderData(text: string, modelGraph: ModelGraph): unknown;
  /** The app's colouring of a parsed file for one graph: node id -> value and colours. */
  processNodeDataProviderDataForGraph(modelGraph: ModelGraph, data: unknown): Record<string, unknown>;
}

/** A three.js mesh of the scene, as far as the shim reads it: its material. */
export interface SceneMesh {
  material?: { type?: string; transparent?: boolean; opacity?: number; map?: unknown; visible?: boolean };
}

/** What is drawn on the canvas of a renderer (three.js, through the app's service). */
export interface ThreejsService {
  /** The scene drawn; its meshes are the ones added to it. */
  scene?: { children?: SceneMesh[] };
  /** How the app adds a mesh to the scene (every mesh it draws or raycasts). */
  addToScene?(mesh: SceneMesh | undefined): void;
  removeFromScene(mesh: unknown): void;
  /** One draw of the whole scene. */
  render(): void;
  /** Moves the camera to look at (x, y) at `scale`, gliding for `duration` ms (300 by default; 0 at once). */
  centerViewAt?(x: number, y: number, scale: number, duration?: number): void;
}

/** A renderer's drawing of node data: the colours come from its selected run's results. */
export interface NdpRendererService {
  /** The pane's selected run (a computed signal). */
  curNodeDataProviderRun(): NodeDataRun | undefined;
  nodeDataProviderDistributionBars: { mesh?: unknown };
  nodeDataProviderSummaryTexts: { mesh?: unknown };
  /** Draws the value bars under the collapsed layers (adds its meshes to the scene). */
  renderNodeDataProviderDistributionBars(): void;
}

/** One of the app's renderers, as window.me_test lists them (by pane index); its services are the app's. */
export interface Renderer {
  appService: {
    getModelGraphFromPaneIndex(pane: number): ModelGraph | undefined;
    panes(): { id: string; modelGraph?: ModelGraph; selectedNodeDataProviderRunId?: string }[];
    setSelectedNodeDataProviderRunId(paneId: string, runId: string | undefined): void;
    /** The pane's "view on node" items by type ("Node data provider: <run name>" among them). */
    getShowOnNodeItemTypes(paneId: string, rendererId: string): Record<string, { selected?: boolean } | undefined>;
    curGraphCollections(): { graphs: CollectionGraph[] }[];
  };
  workerService: { worker: Worker };
  /** The graph this renderer draws (after an expand, the worker's copy). */
  curModelGraph?: ModelGraph;
  /** The pane it draws in, and its own id (the pane's, for a pane's main renderer). */
  paneId?: string;
  rendererId?: string;
  webglRendererNdpService?: NdpRendererService;
  webglRendererThreejsService?: ThreejsService;
  /** Restores every node's colours and applies the selected run's, the selection's and the styler's. */
  updateNodesStyles?(): void;
  /**
   * The results (and run) the renderer drew last: its effect redraws the whole scene when the pane's
   * selected run has other results than these (another object, or none).
   */
  prevNodeDataProviderData?: Record<string, unknown>;
  prevNodeDataProviderRun?: NodeDataRun;
  /**
   * Draws the scene on every animation frame for 200 ms while its meshes move into place, setting each
   * frame's progress with `progress` (by default on every mesh of the renderer).
   */
  animateIntoPositions?(progress?: (value: number) => void): void;
  /** Sets the move-into-place progress (0 to 1) on every mesh of the renderer (the app's spelling). */
  updateAnimatinProgress?(value: number): void;
  nodeDataProviderExtensionService?: NodeDataService;
  /** Shared by every pane. */
  nodeStylerService?: NodeStyler;
}

declare global {
  interface Window {
    me_test?: { renderers?: Record<string, Renderer | undefined> };
  }
}

/** A rule of the app's node styler, as its panel saves it. */
export interface NodeStylerRule {
  queries: Record<string, unknown>[];
  nodeType: string;
  styles: Record<string, { id: string; value: string }>;
  /** Ours (the widget's marks), not the user's. */
  tlwMark?: true;
}

export interface NodeStyler {
  rules: { (): NodeStylerRule[]; set(rules: NodeStylerRule[]): void };
}

/**
 * How the app names a layer (a group node) to its node styler: its label is the last part of its path,
 * its "namespace" attribute the path of the layer around it, "<root>" at the top.
 */
export const ROOT_NAMESPACE = "<root>";

/** Every renderer the app lists (one per pane), drawn or not. */
export function appRenderers(): Renderer[] {
  return Object.values(window.me_test?.renderers ?? {}).filter((renderer): renderer is Renderer => !!renderer);
}

/** The first pane's renderer (the app's services are shared: any renderer reaches them), if drawn. */
export function appRenderer(): Renderer | undefined {
  return window.me_test?.renderers?.["0"];
}
