import { afterEach, describe, expect, it } from "vitest";
import { getAssets } from "../../js/assets";
import { KernelChannel } from "../../js/channel";
import { clearPageCache, FakeWidgetModel, gzipped } from "./fake-widget-model";

const ME = "model-explorer@0.1.33:aaaa";
const NETRON = "netron@8.0.0:bbbb";
/** An assets reply with one file, the page. */
const pageReply = (key: string) => ({
  key,
  viewer: key.split("@")[0],
  version: "0",
  encoding: "gzip",
  files: [{ name: "index.html", role: "page" }],
});
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(clearPageCache);

describe("the page's asset cache", () => {
  it("asks the kernel for the bundle by key and keeps it under that key", async () => {
    const model = new FakeWidgetModel();
    const channel = new KernelChannel(model);
    const pending = getAssets(ME, channel);
    const [request] = model.requests("assets");
    expect(request.params).toEqual({ key: ME });
    model.answer(request, pageReply(ME), [gzipped("<html>me</html>")]);
    const bundle = await pending;
    expect(new TextDecoder().decode(bundle.files.get("index.html"))).toBe("<html>me</html>");
    expect(await getAssets(ME, new KernelChannel(model))).toBe(bundle);
    expect(model.requests("assets")).toHaveLength(1); // once per page
  });

  it("refuses a reply for another bundle and caches nothing", async () => {
    // What a viewer switch racing the first request used to leave: Netron's files under Model Explorer's key.
    const model = new FakeWidgetModel();
    const channel = new KernelChannel(model);
    const pending = getAssets(ME, channel);
    model.answer(model.requests("assets")[0], pageReply(NETRON), [gzipped("netron")]);
    await expect(pending).rejects.toThrow(`request for viewer assets ${ME} with ${NETRON}; nothing was cached`);
    const again = getAssets(ME, channel);
    const requests = model.requests("assets");
    expect(requests).toHaveLength(2); // asked again: the bad reply was not kept
    model.answer(requests[1], pageReply(ME), [gzipped("me")]);
    expect((await again).key).toBe(ME);
  });

  it("lets a view whose asker closed ask again on its own channel", async () => {
    const model = new FakeWidgetModel();
    const closing = new KernelChannel(model);
    const staying = new KernelChannel(model);
    const first = getAssets(ME, closing);
    const second = getAssets(ME, staying);
    expect(model.requests("assets")).toHaveLength(1);
    closing.dispose(); // its view was closed (a re-run cell) before the answer came
    await expect(first).rejects.toThrow("widget closed");
    await flush();
    const requests = model.requests("assets");
    expect(requests.map((r) => r.channel)).toEqual([closing.id, staying.id]);
    model.answer(requests[1], pageReply(ME), [gzipped("me")]);
    expect((await second).key).toBe(ME);
  });

  it("never asks under an empty key", async () => {
    const model = new FakeWidgetModel();
    await expect(getAssets("", new KernelChannel(model))).rejects.toThrow("No viewer asset key yet");
    expect(model.sent).toEqual([]);
  });
});
