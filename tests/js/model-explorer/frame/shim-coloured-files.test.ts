import { describe, expect, it } from "vitest";
import { ColouredFiles } from "../../../../js/model-explorer/frame/shim-coloured-files";
import type { ModelGraph } from "../../../../js/model-explorer/frame/app-internals";

function graph(collectionLabel = "gpt2"): ModelGraph {
  return { id: "00-execution", collectionLabel, nodesById: {} };
}

function coloured(nodes: number) {
  const results = Object.fromEntries(Array.from({ length: nodes }, (_, i) => [`n${i}`, { value: i }]));
  return { data: { "00-execution": {} }, results };
}

describe("the frame's kept colourings of node data files", () => {
  it("gives back a file's colouring for the very graph it coloured, by key", () => {
    const kept = new ColouredFiles();
    const shown = graph();
    const time = coloured(3);
    kept.keep(shown, "k1", time);
    expect(kept.get(shown, "k1")).toMatchObject(time);
    expect(kept.get(shown, "k2")).toBeUndefined();
    expect(kept.get(graph("bert"), "k1")).toBeUndefined(); // another widget's graph
    // another graph object under the same names (the frame shows a new graph): not its colouring, dropped
    expect(kept.get(graph(), "k1")).toBeUndefined();
    expect(kept.get(shown, "k1")).toBeUndefined();
  });

  it("keeps nothing without a key, and at most its count of nodes, dropping the least recently used", () => {
    const kept = new ColouredFiles(10);
    const shown = graph();
    kept.keep(shown, "", coloured(1));
    expect(kept.get(shown, "")).toBeUndefined();
    kept.keep(shown, "a", coloured(4));
    kept.keep(shown, "b", coloured(4));
    expect(kept.get(shown, "a")).toBeDefined(); // a used last: b goes first
    kept.keep(shown, "c", coloured(4));
    expect(kept.get(shown, "b")).toBeUndefined();
    expect(kept.get(shown, "a")).toBeDefined();
    expect(kept.get(shown, "c")).toBeDefined();
    kept.keep(shown, "huge", coloured(11)); // more than the whole budget: not kept, nothing dropped for it
    expect(kept.get(shown, "huge")).toBeUndefined();
    expect(kept.get(shown, "a")).toBeDefined();
  });
});
