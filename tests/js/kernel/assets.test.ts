import { afterEach, describe, expect, it, vi } from "vitest";
import { FOREIGN_FETCH_WAIT_MS, getAssets } from "../../../js/kernel/assets";
import { pageGlobalKey } from "../../../js/shared/page-globals";
import { KernelChannel } from "../../../js/kernel/channel";
import { clearPageCache, FakeWidgetModel, gzipped } from "../fake-widget-model";

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

afterEach(() => {
  clearPageCache();
  vi.useRealTimers();
});

/** The page cache's entry under `key`, as another build's copy of this module would find it. */
const cachedEntry = (key: string) =>
  ((globalThis as Record<string, unknown>)[pageGlobalKey("Assets")] as Map<string, { asker: unknown }>).get(key);

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

  it("keeps no view once the bundle is here", async () => {
    // The first view's channel (and through it its model and DOM) must not live as long as the page.
    const model = new FakeWidgetModel();
    const channel = new KernelChannel(model);
    const pending = getAssets(ME, channel);
    expect(cachedEntry(ME)?.asker).toBe(channel);
    model.answer(model.requests("assets")[0], pageReply(ME), [gzipped("me")]);
    await pending;
    expect(cachedEntry(ME)?.asker).toBeNull();
  });

  it("asks on its own channel when another view's request fails for any reason", async () => {
    // Another notebook's kernel restarted while fetching: its reason is not this view's.
    const other = new FakeWidgetModel();
    const mine = new FakeWidgetModel();
    const theirs = new KernelChannel(other);
    const own = new KernelChannel(mine);
    const first = getAssets(ME, theirs);
    const second = getAssets(ME, own);
    theirs.close("The kernel restarted");
    await expect(first).rejects.toThrow("The kernel restarted");
    await flush();
    const [request] = mine.requests("assets");
    expect(request.channel).toBe(own.id);
    mine.answer(request, pageReply(ME), [gzipped("me")]);
    expect((await second).key).toBe(ME);
  });

  it("asks on its own channel when another view's request does not answer in time, and leaves no timer", async () => {
    vi.useFakeTimers();
    const other = new FakeWidgetModel();
    const mine = new FakeWidgetModel();
    const theirs = new KernelChannel(other, () => true); // a kernel busy with a long cell: its clock stops
    const own = new KernelChannel(mine);
    void getAssets(ME, theirs).catch(() => undefined);
    const second = getAssets(ME, own);
    await vi.advanceTimersByTimeAsync(FOREIGN_FETCH_WAIT_MS - 1);
    expect(mine.requests("assets")).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    const [request] = mine.requests("assets");
    expect(request?.channel).toBe(own.id);
    mine.answer(request, pageReply(ME), [gzipped("me")]);
    expect((await second).key).toBe(ME);
    own.dispose();
    theirs.dispose();
    await vi.advanceTimersByTimeAsync(0); // the requests' deadlines end as their rejections settle
    expect(vi.getTimerCount()).toBe(0);
  });
});
