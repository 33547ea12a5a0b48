// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { SHIM_RECOLOUR, type ShimRecolourRequest } from "../../js/model-explorer/protocol";
import { replaceRuns } from "../../js/model-explorer/shim-recolour";

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
  const appService = {
    getModelGraphFromPaneIndex: (pane: number) =>
      collections[pane] ? { id: "00-execution", collectionLabel: collections[pane] } : undefined,
  };
  window.me_test = { renderers: { "0": { appService, nodeDataProviderExtensionService: service } } };
  return runs;
}

function request(files: ShimRecolourRequest["files"], panes = 1): ShimRecolourRequest {
  return { cmd: SHIM_RECOLOUR, id: 7, panes, files };
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
