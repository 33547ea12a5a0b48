import { afterEach, describe, expect, it, vi } from "vitest";
import { getAssets } from "../../../js/kernel/assets";
import { KernelChannel } from "../../../js/kernel/channel";
import { pageGlobalKey } from "../../../js/shared/page-globals";
import { clearPageCache, FakeWidgetModel, gzipped } from "../fake-widget-model";

const ME = "model-explorer@0.1.33:aaaa";
const reply = { key: ME, viewer: "model-explorer", version: "0.1.33", encoding: "gzip", files: [{ name: "index.html", role: "page" }] };
const holder = globalThis as Record<string, unknown>;

/** What a 0.1.0 build (commit 92b9c5a) kept on the page: key -> a promise of { key, files, wireBytes }. */
function oldBuildCache(): Map<string, Promise<unknown>> {
  return new Map([[ME, Promise.resolve({ key: ME, files: new Map([["index.html", new Uint8Array()]]), wireBytes: 1 })]]);
}

/** The 0.1.0 build's getAssets, as far as it reads the page's cache: it trusts the entry as its promise. */
async function oldBuildReader(key: string): Promise<{ files: Map<string, Uint8Array> }> {
  const cache = holder.__torchlensWidgetsAssets as Map<string, Promise<{ files: Map<string, Uint8Array> }>>;
  const bundle = await cache.get(key);
  if (!(bundle?.files instanceof Map)) throw new TypeError("Cannot read properties of undefined (reading 'get')");
  return bundle;
}

afterEach(() => {
  clearPageCache();
  delete holder.__torchlensWidgetsAssets;
  vi.restoreAllMocks();
});

describe("page-wide globals of two builds on one page", () => {
  it("keeps this build's asset cache under a key of its own shape", () => {
    expect(pageGlobalKey("Assets")).toBe("__torchlensWidgetsAssets_v2");
    expect(pageGlobalKey("ParkedApp")).toBe("__torchlensWidgetsParkedApp_v3");
    // Unchanged shapes stay where older builds keep them, shared with them.
    expect(pageGlobalKey("LiveFrames")).toBe("__torchlensWidgetsLiveFrames");
  });

  it("draws with an old build's cache on the page, and leaves that cache as the old build reads it", async () => {
    const old = oldBuildCache();
    holder.__torchlensWidgetsAssets = old;
    const model = new FakeWidgetModel();
    const pending = getAssets(ME, new KernelChannel(model));
    const [request] = model.requests("assets"); // the old entry was not taken for this build's
    model.answer(request, reply, [gzipped("<html>new</html>")]);
    const bundle = await pending;
    expect(bundle.index).toEqual(reply.files);
    expect(new TextDecoder().decode(bundle.files.get("index.html"))).toBe("<html>new</html>");
    // The old build still finds its own shape under its key: this build wrote nothing there.
    expect(holder.__torchlensWidgetsAssets).toBe(old);
    expect([...old.keys()]).toEqual([ME]);
    await expect(oldBuildReader(ME)).resolves.toMatchObject({ wireBytes: 1 });
  });

  it("ignores a foreign value under its own key instead of crashing", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    holder[pageGlobalKey("Assets")] = { not: "a map" };
    const model = new FakeWidgetModel();
    const pending = getAssets(ME, new KernelChannel(model));
    model.answer(model.requests("assets")[0], reply, [gzipped("x")]);
    expect((await pending).key).toBe(ME);
    expect(holder[pageGlobalKey("Assets")]).toEqual({ not: "a map" }); // left to whoever put it there
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("is not this build's"));
  });

  it("fetches again over an entry of another shape under its key", async () => {
    // An old-shape entry (a bare promise) in this build's map: refetched, not read as { promise, asker }.
    holder[pageGlobalKey("Assets")] = oldBuildCache();
    const model = new FakeWidgetModel();
    const pending = getAssets(ME, new KernelChannel(model));
    model.answer(model.requests("assets")[0], reply, [gzipped("y")]);
    expect((await pending).index).toEqual(reply.files);
  });
});
