// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { SHIM_RECOLOUR, type ShimRecolourRequest } from "../../../../js/model-explorer/protocol";
import { replaceRuns, setAttributes } from "../../../../js/model-explorer/frame/shim-recolour";
import type { Renderer } from "../../../../js/model-explorer/frame/app-internals";

/** The app's node-data service as window.me_test reaches it: runs by id, each of one collection. */
function fakeApp(collections: string[]) {
  const runs: Record<string, { collectionId: string; name: string; data: unknown }> = {
    start: { collectionId: collections[0], name: "time", data: {} },
    other: { collectionId: "another widget's", name: "x", data: {} },
  };
  const service = {
    runs: () => runs,
    addRun: (runId: string, name: string, _ext: string, graph: { collectionLabel: string }, data: unknown) => {
      runs[runId] = { collectionId: graph.collectionLabel, name, data };
    },
    deleteRun: (runId: string) => delete runs[runId],
    getNodeDataProviderData: (text: string) => JSON.parse(text),
  };
  const graphs = collections.map((label) => ({ id: "00-execution", collectionLabel: label, nodesById: {} }));
  const appService = {
    getModelGraphFromPaneIndex: (pane: number) => graphs[pane],
    panes: () => collections.map((_, i) => ({ id: `pane-${i}` })),
    curGraphCollections: () => [],
  };
  const workerService = { worker: { postMessage: () => undefined } as unknown as Worker };
  window.me_test = { renderers: { "0": { appService, workerService, nodeDataProviderExtensionService: service } as unknown as Renderer } };
  return runs;
}

type Run = {
  runId: string;
  runName: string;
  collectionId: string;
  done: boolean;
  results: Record<string, Record<string, unknown>>;
  nodeDataProviderData: Record<string, { showExpandedSummaryOnGroupNode?: boolean }>;
};

/**
 * An app whose pane shows a run of ours (selected for it, as addRun left it), with a renderer that
 * records what it is asked to draw; the app's colouring stands in as "value -> colour of the value".
 */
function appShowingOurRun({ lastDrawn = false } = {}) {
  const calls: string[] = [];
  const graph = { id: "00-execution", collectionLabel: "gpt2", nodesById: {} };
  const results = { a: { value: 1, bgColor: "#1" } } as Record<string, unknown>;
  let runs: Record<string, Run> = {
    "tlw-3-0": {
      runId: "tlw-3-0",
      runName: "time",
      collectionId: "gpt2",
      done: true,
      results: { "00-execution": results, "01-rolled": { a: {} } },
      nodeDataProviderData: { "00-execution": {} },
    },
    other: { runId: "other", runName: "x", collectionId: "another widget's", done: true, results: {}, nodeDataProviderData: {} },
  };
  const panes: { id: string; modelGraph: typeof graph; selectedNodeDataProviderRunId?: string }[] = [
    { id: "pane-0", modelGraph: graph, selectedNodeDataProviderRunId: "tlw-3-0" },
  ];
  const showOnNode: Record<string, { selected?: boolean }> = {};
  const runsSignal = Object.assign(() => runs, {
    set: (next: typeof runs) => {
      calls.push(`runs.set, pane-0 selecting ${panes[0].selectedNodeDataProviderRunId}`);
      runs = next;
    },
  });
  const service = {
    runs: runsSignal,
    addRun: (runId: string) => calls.push(`addRun ${runId}`),
    deleteRun: (runId: string) => calls.push(`deleteRun ${runId}`),
    getNodeDataProviderData: (text: string) => JSON.parse(text),
    processNodeDataProviderDataForGraph: (g: { id: string }, data: Record<string, { results: Record<string, { value: number }> }>) =>
      Object.fromEntries(Object.entries(data[g.id].results).map(([id, { value }]) => [id, { value, bgColor: `#${value}` }])),
  };
  const bars = { mesh: "bars" };
  const texts = { mesh: "texts" };
  const renderer = {
    paneId: "pane-0",
    rendererId: "pane-0",
    appService: {
      getModelGraphFromPaneIndex: () => graph,
      panes: () => panes,
      curGraphCollections: () => [],
      setSelectedNodeDataProviderRunId: (paneId: string, runId: string) => {
        calls.push(`select ${paneId} ${runId}`);
        panes[0].selectedNodeDataProviderRunId = runId;
      },
      getShowOnNodeItemTypes: () => showOnNode,
    },
    workerService: { worker: { postMessage: () => undefined } },
    nodeDataProviderExtensionService: service,
    webglRendererNdpService: {
      nodeDataProviderDistributionBars: bars,
      nodeDataProviderSummaryTexts: texts,
      renderNodeDataProviderDistributionBars: () => calls.push("bars"),
    },
    webglRendererThreejsService: {
      removeFromScene: (mesh: string) => calls.push(`remove ${mesh}`),
      render: () => calls.push("render"),
    },
    updateNodesStyles: () => calls.push("styles"),
    // the app's renderer keeps the results it drew last (an app that does not: lastDrawn false)
    ...(lastDrawn ? { prevNodeDataProviderData: results, prevNodeDataProviderRun: runs["tlw-3-0"] } : {}),
  };
  window.me_test = { renderers: { "0": renderer as unknown as Renderer } };
  return { calls, results, runs: () => runs, showOnNode, renderer: renderer as typeof renderer & Renderer, panes };
}

const FLOPS = '{"00-execution":{"results":{"a":{"value":7},"b":{"value":9}}}}';

/** An app showing one graph (and a second, not drawn, in its collection), its worker's messages kept. */
function appWithGraphs() {
  const posted: unknown[] = [];
  const drawn = {
    id: "00-execution",
    collectionLabel: "gpt2",
    nodesById: { a: { attrs: { torchlens_label: "add_1_1:1" } }, group: {} } as Record<string, { attrs?: Record<string, unknown> }>,
  };
  const expanded = { ...drawn, nodesById: { a: { attrs: { torchlens_label: "add_1_1:1" } } } }; // the worker's copy
  const loaded = [
    {
      id: "00-execution",
      nodes: [
        {
          id: "a",
          attrs: [
            { key: "torchlens_label", value: "add_1_1:1" },
            { key: "diff_status", value: "zero" },
          ],
        },
      ],
    },
    { id: "01-rolled", nodes: [{ id: "a", attrs: [] as { key: string; value: unknown }[] }] },
  ];
  const renderer = {
    appService: {
      getModelGraphFromPaneIndex: () => drawn,
      panes: () => [{ id: "pane-0" }],
      curGraphCollections: () => [{ graphs: loaded }],
    },
    workerService: { worker: { postMessage: (message: unknown) => posted.push(message) } as unknown as Worker },
    curModelGraph: expanded,
  } as unknown as Renderer;
  window.me_test = { renderers: { "0": renderer } };
  return { posted, drawn, expanded, loaded };
}

function request(files: ShimRecolourRequest["files"], panes = 1): ShimRecolourRequest {
  return { cmd: SHIM_RECOLOUR, id: 7, panes, files, attributes: "{}" };
}

describe("an overlay switch inside the Model Explorer frame", () => {
  afterEach(() => {
    delete window.me_test;
  });

  it("replaces the pane's run of node data with the new file, and leaves other collections' runs", () => {
    const runs = fakeApp(["gpt2"]);
    replaceRuns(request([{ pane: 0, name: "flops", key: "", json: '{"results":{}}' }]));
    expect(Object.keys(runs).sort()).toEqual(["other", "tlw-7-0"]);
    expect(runs["tlw-7-0"]).toEqual({ collectionId: "gpt2", name: "flops", data: { results: {} } });
  });

  it("clears the pane's runs when the overlay is turned off", () => {
    const runs = fakeApp(["gpt2"]);
    replaceRuns(request([]));
    expect(Object.keys(runs)).toEqual(["other"]);
  });

  it("colours each pane of a diff with its own file", () => {
    const runs = fakeApp(["reference", "candidate"]);
    replaceRuns(
      request(
        [
          { pane: 0, name: "delta", key: "", json: '{"a":1}' },
          { pane: 1, name: "delta", key: "", json: '{"b":2}' },
        ],
        2,
      ),
    );
    expect(runs["tlw-7-0"]).toMatchObject({ collectionId: "reference", data: { a: 1 } });
    expect(runs["tlw-7-1"]).toMatchObject({ collectionId: "candidate", data: { b: 2 } });
  });

  it("restyles a pane that shows a run of ours in place: the same results object, one draw", () => {
    const { calls, results, runs } = appShowingOurRun();
    expect(replaceRuns(request([{ pane: 0, name: "flops", key: "", json: FLOPS }]))).toEqual(["in-place"]);
    // the object the renderer holds, filled by the app's colouring: its effects see no new object
    expect(runs()["tlw-7-0"].results["00-execution"]).toBe(results);
    expect(results).toEqual({ a: { value: 7, bgColor: "#7" }, b: { value: 9, bgColor: "#9" } });
    // another graph's colours are dropped (the app colours it again when it is shown)
    expect(Object.keys(runs()["tlw-7-0"].results)).toEqual(["00-execution"]);
    // under a new id (the info panel's summary rows are keyed on it), selected on the pane itself before
    // the runs are published: no new list of panes, which would wake the renderer's selection effect
    expect(Object.keys(runs()).sort()).toEqual(["other", "tlw-7-0"]);
    expect(runs()["tlw-7-0"]).toMatchObject({ runId: "tlw-7-0", runName: "flops", nodeDataProviderData: JSON.parse(FLOPS) });
    expect(calls).toEqual(["runs.set, pane-0 selecting tlw-7-0", "remove bars", "remove texts", "bars", "styles", "render"]);
  });

  it("fills the drawn results with the app's colouring kept for a file shown lately, neither read nor coloured again", () => {
    const { calls, results, runs, renderer } = appShowingOurRun({ lastDrawn: true });
    const coloured: string[] = [];
    const service = renderer.nodeDataProviderExtensionService as unknown as {
      processNodeDataProviderDataForGraph: (g: { id: string }, data: unknown) => Record<string, unknown>;
      getNodeDataProviderData: (text: string) => unknown;
    };
    const colour = service.processNodeDataProviderDataForGraph;
    const read = service.getNodeDataProviderData;
    service.processNodeDataProviderDataForGraph = (g, data) => {
      coloured.push("colour");
      return colour(g, data);
    };
    service.getNodeDataProviderData = (text) => {
      coloured.push("read");
      return read(text);
    };
    const BYTES = '{"00-execution":{"results":{"a":{"value":3}}}}';
    const switchTo = (id: number, key: string, json: string) => replaceRuns({ ...request([{ pane: 0, name: key, key, json }]), id });

    expect(switchTo(7, "k-flops", FLOPS)).toEqual(["in-place"]);
    expect(switchTo(8, "k-bytes", BYTES)).toEqual(["in-place"]);
    expect(results).toEqual({ a: { value: 3, bgColor: "#3" } }); // b, not in bytes, gone
    expect(coloured).toEqual(["read", "colour", "read", "colour"]);
    // flops again: the kept colouring, in the very object drawn, drawn once
    calls.length = 0;
    expect(switchTo(9, "k-flops", FLOPS)).toEqual(["in-place"]);
    expect(coloured).toEqual(["read", "colour", "read", "colour"]);
    expect(runs()["tlw-9-0"].results["00-execution"]).toBe(results);
    expect(results).toEqual({ a: { value: 7, bgColor: "#7" }, b: { value: 9, bgColor: "#9" } });
    expect(runs()["tlw-9-0"]).toMatchObject({ runName: "k-flops", nodeDataProviderData: JSON.parse(FLOPS) });
    expect(calls).toEqual(["runs.set, pane-0 selecting tlw-9-0", "remove bars", "remove texts", "bars", "styles", "render"]);
    // the colouring kept is not the object drawn: filling that one anew left the kept one whole
    expect(switchTo(10, "k-bytes", BYTES)).toEqual(["in-place"]);
    expect(switchTo(11, "k-flops", FLOPS)).toEqual(["in-place"]);
    expect(results).toEqual({ a: { value: 7, bgColor: "#7" }, b: { value: 9, bgColor: "#9" } });
    expect(coloured).toHaveLength(4);
    // a file with no key is read and coloured every time
    switchTo(12, "", FLOPS);
    switchTo(13, "", FLOPS);
    expect(coloured.slice(4)).toEqual(["read", "colour", "read", "colour"]);
  });

  it("adds a first overlay in place: the run addRun would make, told to the renderer as drawn, one draw", () => {
    const { calls, runs, renderer, panes } = appShowingOurRun({ lastDrawn: true });
    delete runs()["tlw-3-0"]; // no overlay yet
    panes[0].selectedNodeDataProviderRunId = undefined;
    expect(replaceRuns(request([{ pane: 0, name: "flops", key: "", json: FLOPS }]))).toEqual(["in-place"]);
    const added = runs()["tlw-7-0"];
    expect(added).toEqual({
      runId: "tlw-7-0",
      runName: "flops",
      done: true,
      results: { "00-execution": { a: { value: 7, bgColor: "#7" }, b: { value: 9, bgColor: "#9" } } },
      extensionId: "",
      collectionId: "gpt2",
      nodeDataProviderData: JSON.parse(FLOPS),
    });
    // the renderer's redraw effect compares the pane's results with these: the same object, no redraw
    expect(renderer.prevNodeDataProviderData).toBe(added.results["00-execution"]);
    expect(renderer.prevNodeDataProviderRun).toBe(added);
    // the panes published after the runs: with no run selected, the renderer's run read only the panes
    expect(calls).toEqual([
      "runs.set, pane-0 selecting tlw-7-0",
      "select pane-0 tlw-7-0",
      "remove bars",
      "remove texts",
      "bars",
      "styles",
      "render",
    ]);
  });

  it("clears an overlay in place: the run removed, the renderer told it drew none, one draw", () => {
    const { calls, runs, renderer } = appShowingOurRun({ lastDrawn: true });
    expect(replaceRuns(request([]))).toEqual(["in-place"]);
    expect(Object.keys(runs())).toEqual(["other"]);
    expect(renderer.prevNodeDataProviderData).toBeUndefined();
    expect(renderer.prevNodeDataProviderRun).toBeUndefined();
    expect(calls).toEqual(["runs.set, pane-0 selecting undefined", "remove bars", "remove texts", "bars", "styles", "render"]);
  });

  it("takes the app's own route to clear and for a first overlay when the renderer keeps no last results, or a run of the user's is there", () => {
    const first = fakeApp(["gpt2"]);
    expect(replaceRuns(request([{ pane: 0, name: "flops", key: "", json: "{}" }]))).toEqual(["replaced"]); // the user's run "start"
    expect(Object.keys(first).sort()).toEqual(["other", "tlw-7-0"]);
    const { calls } = appShowingOurRun(); // an app whose renderer does not keep what it drew last
    expect(replaceRuns(request([]))).toEqual(["replaced"]);
    expect(calls).toEqual(["deleteRun tlw-3-0"]);

    const laidOut = appShowingOurRun({ lastDrawn: true }); // summaries under the layers: the app lays out again
    delete laidOut.runs()["tlw-3-0"];
    const summary = '{"00-execution":{"showExpandedSummaryOnGroupNode":true,"results":{}}}';
    expect(replaceRuns(request([{ pane: 0, name: "flops", key: "", json: summary }]))).toEqual(["replaced"]);
    expect(laidOut.calls).toEqual(["addRun tlw-7-0"]);
  });

  it("takes the app's own route when only a full redraw or a layout shows the change", () => {
    const onNodes = appShowingOurRun();
    onNodes.showOnNode["Node data provider: time"] = { selected: true }; // the values written on the nodes
    expect(replaceRuns(request([{ pane: 0, name: "flops", key: "", json: FLOPS }]))).toEqual(["replaced"]);
    expect(onNodes.calls).toEqual(["deleteRun tlw-3-0", "addRun tlw-7-0"]);

    const summary = appShowingOurRun(); // the app lays the graph out again for these summaries
    const laidOut = '{"00-execution":{"showExpandedSummaryOnGroupNode":true,"results":{}}}';
    expect(replaceRuns(request([{ pane: 0, name: "flops", key: "", json: laidOut }]))).toEqual(["replaced"]);
    expect(summary.calls).toEqual(["deleteRun tlw-3-0", "addRun tlw-7-0"]);

    const unselected = appShowingOurRun(); // the user selected another run in the app's panel
    unselected.runs().mine = { ...unselected.runs()["tlw-3-0"], runId: "mine" };
    expect(replaceRuns(request([{ pane: 0, name: "flops", key: "", json: FLOPS }]))).toEqual(["replaced"]);

    const older = appShowingOurRun(); // an app without the members the in-place route calls
    delete (older.renderer as { updateNodesStyles?: unknown }).updateNodesStyles;
    expect(replaceRuns(request([{ pane: 0, name: "flops", key: "", json: FLOPS }]))).toEqual(["replaced"]);
    expect(older.calls).toEqual(["deleteRun tlw-3-0", "addRun tlw-7-0"]);
  });

  it("says so when the app has no node-data service to recolour through (the parent then reports it)", () => {
    expect(() => replaceRuns(request([]))).toThrow(/no node-data service/);
    fakeApp([]);
    expect(() => replaceRuns(request([]))).toThrow(/pane 0 shows no graph/);
  });
});

describe("a baseline's facts set inside the Model Explorer frame", () => {
  afterEach(() => {
    delete window.me_test;
  });

  it("sets them on every copy of the graph the app keeps, and has its layout worker merge them", () => {
    const { posted, drawn, expanded, loaded } = appWithGraphs();
    setAttributes(
      { "00-execution": { a: { diff_status: "changed" }, missing: { diff_status: "zero" } }, "01-rolled": { a: { diff_status: "zero" } } },
      1,
    );
    expect(drawn.nodesById.a.attrs).toEqual({ torchlens_label: "add_1_1:1", diff_status: "changed" });
    expect(expanded.nodesById.a.attrs).toEqual({ torchlens_label: "add_1_1:1", diff_status: "changed" });
    // the loaded collection: replaced, never doubled; the graph not drawn is set too
    expect(loaded[0].nodes[0].attrs).toEqual([
      { key: "torchlens_label", value: "add_1_1:1" },
      { key: "diff_status", value: "changed" },
    ]);
    expect(loaded[1].nodes[0].attrs).toEqual([{ key: "diff_status", value: "zero" }]);
    // one message per drawn node of the pane's graph, as the app's own addNodeAttributes sends it
    expect(posted).toEqual([
      { eventType: 12, modelGraphId: "00-execution", nodeId: "a", attrs: { diff_status: "changed" }, paneId: "pane-0" },
    ]);
  });

  it("removes them from every copy when cleared, and gives the worker's copy a value its readers skip", () => {
    const { posted, drawn, expanded, loaded } = appWithGraphs();
    setAttributes({ "00-execution": { a: { diff_status: "changed" } } }, 1);
    posted.length = 0;
    setAttributes({ "00-execution": { a: { diff_status: null } } }, 1);
    expect(drawn.nodesById.a.attrs).toEqual({ torchlens_label: "add_1_1:1" });
    expect(expanded.nodesById.a.attrs).toEqual({ torchlens_label: "add_1_1:1" });
    expect(loaded[0].nodes[0].attrs).toEqual([{ key: "torchlens_label", value: "add_1_1:1" }]);
    // the worker only merges: the key stays there with a value no reader of its copy shows or matches
    expect(posted).toEqual([
      { eventType: 12, modelGraphId: "00-execution", nodeId: "a", attrs: { diff_status: { type: "tlw-cleared" } }, paneId: "pane-0" },
    ]);
  });

  it("touches nothing when there is nothing to set, and says so when the app has no layout worker", () => {
    expect(() => setAttributes({}, 1)).not.toThrow();
    expect(() => setAttributes({ g: { a: { k: "v" } } }, 1)).toThrow(/no graph collections or layout worker/);
  });
});
