import { describe, expect, it, vi } from "vitest";
import { KernelChannel } from "../../../js/kernel/channel";
import { ReplayModel, type Recording } from "../../../js/kernel/offline";
import { parseColoursReply, parseGraphReply, RECORDING_FORMAT, type RequestMethod } from "../../../js/kernel/protocol";

function recording(): Recording {
  return {
    format: RECORDING_FORMAT,
    state: { overlay: "time", overlay_summary: "time on 3 of 3", selected_node: "", selected_label: "", _graph_rev: 1, _colour_rev: 0 },
    buffers: [btoa("graph"), btoa("time-values"), btoa("bytes-values"), btoa("hist")],
    assets: { result: { key: "k", viewer: "model-explorer", version: "0", encoding: "gzip", files: [] }, buffers: [] },
    graphs: {
      "": { reply: { result: { label: "m" }, buffers: [0] }, summary: "" },
      time: { reply: { result: { label: "m", nodeData: { name: "time" } }, buffers: [0, 1] }, summary: "time on 3 of 3" },
      bytes: { reply: { result: { label: "m", nodeData: { name: "bytes" } }, buffers: [0, 2] }, summary: "bytes on 3 of 3" },
    },
    refused: { grad_norm: "no backward pass. Remedy: ..." },
    labels: { n1: "linear_1_1:1" },
    inspect: { "linear_1_1:1": { result: { kind: "op", label: "linear_1_1:1" }, buffers: [3] } },
  };
}

const text = (view: DataView) => new TextDecoder().decode(view);

describe("ReplayModel", () => {
  it("answers the view's requests from the recording, the graph for the current overlay", async () => {
    const model = new ReplayModel(recording());
    const channel = new KernelChannel(model);
    const graph = await channel.request("graph");
    expect(parseGraphReply("model-explorer", graph.result, graph.buffers.length)).toMatchObject({
      colours: { nodeData: { name: "time" } },
    });
    expect(graph.buffers.map(text)).toEqual(["graph", "time-values"]);
    expect((await channel.request("inspect")).result).toEqual({ kind: "none", label: "" });
    await expect(channel.request("reload" as RequestMethod)).rejects.toThrow("re-run the notebook");
  });

  it("derives the label of a clicked node and inspects it, as the kernel would", async () => {
    const model = new ReplayModel(recording());
    const onLabel = vi.fn();
    model.on("change:selected_label", onLabel);
    model.set("selected_node", "n1");
    model.save_changes();
    expect(model.get("selected_label")).toBe("linear_1_1:1");
    expect(onLabel).toHaveBeenCalledTimes(1);
    const inspected = await new KernelChannel(model).request("inspect");
    expect(inspected.result).toEqual({ kind: "op", label: "linear_1_1:1" });
    expect(inspected.buffers.map(text)).toEqual(["hist"]);
  });

  it("switches to a recorded overlay, its colours only, and refuses the others with the kernel's reason", async () => {
    const model = new ReplayModel(recording());
    model.set("overlay", "bytes");
    model.save_changes();
    expect([model.get("overlay_summary"), model.get("_graph_rev"), model.get("_colour_rev")]).toEqual(["bytes on 3 of 3", 1, 1]);
    const colours = await new KernelChannel(model).request("colours", { facts: "" });
    expect(parseColoursReply("model-explorer", colours.result, colours.buffers.length)).toMatchObject({
      colourRev: 1,
      nodeData: { name: "bytes" },
    });
    expect(colours.buffers.map(text)).toEqual(["bytes-values"]); // the graph is not sent again
    model.set("overlay", "grad_norm");
    model.save_changes();
    expect(model.get("overlay")).toBe("bytes"); // the previous overlay stays
    expect(model.get("notice")).toContain("Remedy");
    model.set("overlay", "field:unknown");
    model.save_changes();
    expect(model.get("notice")).toContain("not saved in this file");
  });

  it("a comparison's file switches the run's graph in place and refuses an overlay that run cannot show", async () => {
    const graphs = recording().graphs;
    const runs = {
      a: { graphs, refused: {} },
      b: {
        graphs: {
          "": graphs[""],
          time: { reply: { result: { label: "m", nodeData: { name: "time of b" } }, buffers: [0, 2] }, summary: "b" },
        },
        refused: { bytes: "b has no bytes. Remedy: ..." },
      },
    };
    const model = new ReplayModel({ ...recording(), state: { ...recording().state, runs: ["a", "b"], run: "a" }, runs });
    const channel = new KernelChannel(model);
    model.set("run", "b");
    model.save_changes();
    expect([model.get("overlay_summary"), model.get("_colour_rev"), model.get("notice")]).toEqual(["b", 1, ""]);
    const graph = await channel.request("graph");
    expect(graph.buffers.map(text)).toEqual(["graph", "bytes-values"]); // the same graph bytes, b's node data
    model.set("overlay", "bytes");
    model.save_changes();
    expect([model.get("overlay"), model.get("notice")]).toEqual(["time", "b has no bytes. Remedy: ..."]);
    model.set("run", "a");
    model.save_changes();
    model.set("overlay", "bytes");
    model.save_changes();
    model.set("run", "b"); // shown in a, refused in b: no colours, the overlay kept, the reason said
    model.save_changes();
    expect([model.get("overlay"), model.get("overlay_summary"), model.get("notice")]).toEqual(["bytes", "", "b has no bytes. Remedy: ..."]);
    expect((await channel.request("graph")).buffers.map(text)).toEqual(["graph"]);
  });

  it("refuses a recording of another format", () => {
    expect(() => new ReplayModel({ ...recording(), format: "other" })).toThrow("Unsupported recording");
  });
});
