// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { SHIM_RECOLOUR, type ShimRecolourRequest } from "../../js/model-explorer/protocol";
import { replaceRuns, setAttributes } from "../../js/model-explorer/shim-recolour";
import type { Renderer } from "../../js/model-explorer/app-internals";

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
  window.me_test = { renderers: { "0": { appService, workerService, nodeDataProviderExtensionService: service } } };
  return runs;
}

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
  return { cmd: SHIM_RECOLOUR, id: 7, panes, files, attributes: {} };
}

describe("an overlay switch inside the Model Explorer frame", () => {
  afterEach(() => {
    delete window.me_test;
  });

  it("replaces the pane's run of node data with the new file, and leaves other collections' runs", () => {
    const runs = fakeApp(["gpt2"]);
    replaceRuns(request([{ pane: 0, name: "flops", json: '{"results":{}}' }]));
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
          { pane: 0, name: "delta", json: '{"a":1}' },
          { pane: 1, name: "delta", json: '{"b":2}' },
        ],
        2,
      ),
    );
    expect(runs["tlw-7-0"]).toMatchObject({ collectionId: "reference", data: { a: 1 } });
    expect(runs["tlw-7-1"]).toMatchObject({ collectionId: "candidate", data: { b: 2 } });
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
