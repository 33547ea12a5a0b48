import { afterEach, describe, expect, it, vi } from "vitest";
import { KernelChannel } from "../../../js/kernel/channel";
import { fetchDrawInputs, type DrawInputOptions } from "../../../js/view/draw-inputs";
import { clearPageCache, FakeWidgetModel, gzipped } from "../fake-widget-model";

const KEY = "model-explorer@0.1.33:aaaa";

function options(overrides: Partial<DrawInputOptions> = {}): DrawInputOptions & { waited: number; loading: string[] } {
  const result = {
    waited: 0,
    loading: [] as string[],
    onWaiting: () => (result.waited += 1),
    onLoading: (viewer: string) => result.loading.push(viewer),
    counting: () => true,
    budgetMs: 120_000,
    ...overrides,
  };
  return result;
}

afterEach(() => {
  clearPageCache();
  vi.useRealTimers();
});

describe("fetchDrawInputs", () => {
  it("waits for traits that arrive after the view rendered, then asks once, by the key", async () => {
    // VS Code renders an output before the kernel's trait updates reach the model.
    const model = new FakeWidgetModel({ viewer: "model-explorer", _asset_key: "", _graph_rev: 0 });
    const channel = new KernelChannel(model);
    const opts = options();
    const pending = fetchDrawInputs(model, channel, opts);
    await Promise.resolve();
    expect(opts.waited).toBe(1);
    expect(model.sent).toEqual([]); // nothing asked under an empty key
    model.set("_asset_key", KEY);
    await Promise.resolve();
    expect(model.sent).toEqual([]); // the graph revision is still unknown
    model.set("_graph_rev", 1);
    await vi.waitFor(() => expect(model.sent).toHaveLength(2));
    const [assets] = model.requests("assets");
    expect(assets.params).toEqual({ key: KEY });
    model.answer(
      assets,
      { key: KEY, viewer: "model-explorer", version: "0", encoding: "gzip", files: [{ name: "index.html", role: "page" }] },
      [gzipped("<html/>")],
    );
    model.answer(model.requests("graph")[0], { label: "m", encoding: "gzip", colourRev: 2, facts: "" }, [gzipped("{}")]);
    const inputs = await pending;
    expect(inputs.viewer).toBe("model-explorer");
    expect(inputs.bundle.key).toBe(KEY);
    expect((await inputs.graph).reply).toEqual({
      kind: "model-explorer",
      label: "m",
      colours: { kind: "model-explorer", colourRev: 2, facts: "", nodeData: null, nodeAttributes: null },
    });
    expect(opts.loading).toEqual(["model-explorer"]);
    expect(model.requests("assets")).toHaveLength(1);
  });

  it("asks at once when the traits are already there", async () => {
    const model = new FakeWidgetModel({ viewer: "netron", _asset_key: KEY, _graph_rev: 3 });
    const opts = options();
    void fetchDrawInputs(model, new KernelChannel(model), opts).catch(() => {});
    await vi.waitFor(() => expect(model.sent).toHaveLength(2));
    expect(opts.waited).toBe(0);
    expect(opts.loading).toEqual(["netron"]);
  });

  it("hands over the assets while the graph is still on its way (a viewer boots meanwhile)", async () => {
    const model = new FakeWidgetModel({ viewer: "netron", _asset_key: KEY, _graph_rev: 1 });
    const pending = fetchDrawInputs(model, new KernelChannel(model), options());
    await vi.waitFor(() => expect(model.sent).toHaveLength(2));
    const [assets] = model.requests("assets");
    model.answer(assets, { key: KEY, viewer: "netron", version: "0", encoding: "gzip", files: [{ name: "index.html", role: "page" }] }, [
      gzipped("<html/>"),
    ]);
    const inputs = await pending; // no graph reply yet
    expect(inputs.bundle.key).toBe(KEY);
    let graphLanded = false;
    void inputs.graph.then(() => (graphLanded = true));
    await Promise.resolve();
    expect(graphLanded).toBe(false);
    const reply = { identifier: "m.onnx.json", attachment: "m.json", overlay: null };
    model.answer(model.requests("graph")[0], reply, [gzipped("{}"), gzipped("{}")]);
    expect((await inputs.graph).reply.kind).toBe("netron");
  });

  it("says the kernel never answered once the draw budget is spent, counting only while it counts", async () => {
    vi.useFakeTimers();
    const model = new FakeWidgetModel({ viewer: "model-explorer", _asset_key: "", _graph_rev: 0 });
    let counting = false; // off screen, or the kernel busy
    let failure: unknown = null;
    const pending = fetchDrawInputs(model, new KernelChannel(model), options({ counting: () => counting, budgetMs: 2_000 }));
    pending.catch((error) => (failure = error));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(failure).toBeNull();
    counting = true;
    await vi.advanceTimersByTimeAsync(2_000);
    expect(String(failure)).toMatch(/did not say which graph to show within 2 s.*Re-run the cell/);
    expect(model.sent).toEqual([]);
  });
});
