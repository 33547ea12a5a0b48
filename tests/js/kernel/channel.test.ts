import { afterEach, describe, expect, it, vi } from "vitest";
import { KernelChannel, RequestError, SILENCE_MS, type CustomMessageModel } from "../../../js/kernel/channel";

/** A stand-in for the widget model's custom-message surface: records sends, lets the test reply. */
class FakeModel implements CustomMessageModel {
  sent: unknown[] = [];
  private listeners: ((content: unknown, buffers: DataView[]) => void)[] = [];
  send(content: unknown) {
    this.sent.push(content);
  }
  on(_event: "msg:custom", callback: (content: unknown, buffers: DataView[]) => void) {
    this.listeners.push(callback);
  }
  off(_event: "msg:custom", callback: (content: unknown, buffers: DataView[]) => void) {
    this.listeners = this.listeners.filter((l) => l !== callback);
  }
  reply(content: unknown, buffers: DataView[] = []) {
    for (const listener of [...this.listeners]) listener(content, buffers);
  }
  get listenerCount() {
    return this.listeners.length;
  }
}

afterEach(() => vi.useRealTimers());

describe("KernelChannel", () => {
  it("matches responses to requests by id, whatever the order", async () => {
    const model = new FakeModel();
    const channel = new KernelChannel(model);
    const first = channel.request("assets", { viewer: "model-explorer" });
    const second = channel.request("graph");
    expect(model.sent).toEqual([
      { type: "request", channel: channel.id, id: 1, method: "assets", params: { viewer: "model-explorer" } },
      { type: "request", channel: channel.id, id: 2, method: "graph", params: {} },
    ]);
    const buffer = new DataView(new ArrayBuffer(3));
    model.reply({ type: "response", channel: channel.id, id: 2, ok: true, result: { label: "g" } }, [buffer]);
    model.reply({ type: "response", channel: channel.id, id: 1, ok: true, result: { key: "k" } });
    await expect(second).resolves.toEqual({ result: { label: "g" }, buffers: [buffer] });
    await expect(first).resolves.toEqual({ result: { key: "k" }, buffers: [] });
  });

  it("keeps the latest reply sent ahead of each method until its view takes it, decoding text buffers", () => {
    const model = new FakeModel();
    const channel = new KernelChannel(model);
    expect(channel.takeAhead("colours")).toBeUndefined();
    const buffer = new DataView(new ArrayBuffer(2));
    model.reply({ type: "ahead", method: "colours", result: { colourRev: 1 } }, [buffer]);
    model.reply({ type: "ahead", method: "colours", result: { colourRev: 2 }, base64_buffers: ["AQ=="] });
    model.reply({ type: "ahead", method: "no-such-method", result: {} }); // ignored
    const taken = channel.takeAhead("colours");
    expect(taken?.result).toEqual({ colourRev: 2 });
    expect(Array.from(new Uint8Array(taken!.buffers[0].buffer))).toEqual([1]);
    expect(channel.takeAhead("colours")).toBeUndefined(); // taken: gone
    expect(model.sent).toEqual([]); // nothing asked
  });

  it("tells its view when a reply sent ahead lands, and lets it look without taking it", () => {
    const model = new FakeModel();
    const landed: string[] = [];
    const channel = new KernelChannel(model, undefined, undefined, { onAhead: (method) => landed.push(method) });
    model.reply({ type: "ahead", method: "colours", result: { colourRev: 3 } });
    model.reply({ type: "ahead", method: "colours", result: { colourRev: 4 }, base64_buffers: ["not base64!"] }); // undecodable
    model.reply({ type: "ahead", method: "colours", result: { colourRev: 5 } });
    expect(landed).toEqual(["colours", "colours"]); // not for the one it could not decode
    expect(channel.peekAhead("colours")?.result).toEqual({ colourRev: 5 });
    expect(channel.takeAhead("colours")?.result).toEqual({ colourRev: 5 }); // still there to take
  });

  it("turns a kernel-side failure into a rejected promise with the kernel's message", async () => {
    const model = new FakeModel();
    const channel = new KernelChannel(model);
    const pending = channel.request("graph");
    model.reply({ type: "response", channel: channel.id, id: 1, ok: false, error: "ValueError: bad payload" });
    await expect(pending).rejects.toThrow("ValueError: bad payload");
  });

  it("ignores messages that are not responses or answer nothing pending", async () => {
    const model = new FakeModel();
    const channel = new KernelChannel(model);
    const pending = channel.request("graph");
    model.reply({ type: "something-else", id: 1 });
    model.reply({ type: "response", channel: channel.id, id: 99, ok: true, result: 1 });
    model.reply("not an object");
    model.reply({ type: "response", channel: channel.id, id: 1, ok: true, result: "right" });
    await expect(pending).resolves.toMatchObject({ result: "right" });
  });

  it("times out with a message telling the user what to do", async () => {
    vi.useFakeTimers();
    const channel = new KernelChannel(new FakeModel());
    const pending = channel.request("assets", {}, 5_000);
    vi.advanceTimersByTime(5_001);
    await expect(pending).rejects.toThrow(/did not answer 'assets' within 5 s.*re-run this cell/);
  });

  it("rejects what is pending and stops listening when disposed", async () => {
    const model = new FakeModel();
    const channel = new KernelChannel(model);
    const pending = channel.request("graph");
    channel.dispose();
    await expect(pending).rejects.toBeInstanceOf(RequestError);
    expect(model.listenerCount).toBe(0);
  });
});

describe("KernelChannel.close", () => {
  it("fails pending and later requests with the reason, without waiting for a time-out", async () => {
    const model = new FakeModel();
    const channel = new KernelChannel(model);
    const pending = channel.request("graph");
    channel.close("The kernel restarted");
    await expect(pending).rejects.toThrow("The kernel restarted");
    await expect(channel.request("inspect")).rejects.toThrow("The kernel restarted");
    expect(model.sent).toHaveLength(1); // nothing more is sent into a dead comm
  });
});

describe("KernelChannel with a busy kernel", () => {
  it("keeps waiting while the kernel runs cells, and times out once it is idle", async () => {
    vi.useFakeTimers();
    const model = new FakeModel();
    let busy = true;
    const channel = new KernelChannel(model, () => busy);
    let failed: unknown = null;
    const pending = channel.request("assets", {}, 1_000).catch((error) => (failed = error));
    await vi.advanceTimersByTimeAsync(10_000); // ten time-outs' worth behind a long cell
    expect(failed).toBeNull();
    busy = false;
    await vi.advanceTimersByTimeAsync(1_000);
    await pending;
    expect(String(failed)).toContain("did not answer 'assets'");
  });

  it("still gets the answer that arrives after a long wait", async () => {
    vi.useFakeTimers();
    const model = new FakeModel();
    const channel = new KernelChannel(model, () => true);
    const pending = channel.request("graph", {}, 1_000);
    await vi.advanceTimersByTimeAsync(5_000);
    const { id } = model.sent[0] as { id: number };
    model.reply({ type: "response", channel: channel.id, id, ok: true, result: "late but fine" });
    expect((await pending).result).toBe("late but fine");
  });
});

describe("KernelChannel with two views of one widget", () => {
  // Every view of a widget receives every custom message of its model, and each numbers its
  // requests from 1: a reply must reach only the view that asked.
  it("gives each view only the replies to its own requests", async () => {
    const model = new FakeModel();
    const first = new KernelChannel(model);
    const second = new KernelChannel(model);
    expect(first.id).not.toBe(second.id);
    const assets = first.request("assets");
    const graph = second.request("graph");
    const [a, b] = model.sent as { channel: string; id: number }[];
    expect(a.id).toBe(b.id); // both number from 1
    const assetBuffer = new DataView(new ArrayBuffer(5));
    model.reply({ type: "response", channel: a.channel, id: a.id, ok: true, result: { key: "k" } }, [assetBuffer]);
    model.reply({ type: "response", channel: b.channel, id: b.id, ok: true, result: { label: "g" } });
    await expect(assets).resolves.toEqual({ result: { key: "k" }, buffers: [assetBuffer] });
    await expect(graph).resolves.toEqual({ result: { label: "g" }, buffers: [] });
  });

  it("ignores a reply that names no channel", async () => {
    vi.useFakeTimers();
    const model = new FakeModel();
    const channel = new KernelChannel(model);
    let settled = false;
    const pending = channel.request("graph", {}, 1_000);
    pending.then(
      () => (settled = true),
      () => (settled = true),
    );
    model.reply({ type: "response", id: 1, ok: true, result: "someone else's" });
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(pending).rejects.toThrow("did not answer");
  });
});

describe("KernelChannel buffer encodings", () => {
  const bytes = (view: DataView) => Array.from(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));

  it("asks for base64 on hosts that need it and decodes the reply's buffers", async () => {
    const model = new FakeModel();
    const channel = new KernelChannel(model, () => false, "base64");
    const pending = channel.request("assets", { key: "k" });
    expect(model.sent[0]).toMatchObject({ buffers: "base64", method: "assets" });
    const data = [0, 1, 127, 128, 255, 31, 139];
    const text = btoa(String.fromCharCode(...data));
    model.reply({ type: "response", channel: channel.id, id: 1, ok: true, result: { key: "k" }, base64_buffers: [text, ""] });
    const { result, buffers } = await pending;
    expect(result).toEqual({ key: "k" });
    expect(buffers.map(bytes)).toEqual([data, []]);
  });

  it("asks for nothing special where binary buffers are carried as they are", () => {
    const model = new FakeModel();
    const channel = new KernelChannel(model);
    void channel.request("graph");
    expect(model.sent[0]).not.toHaveProperty("buffers");
  });

  it("fails the request, not the page, on a reply it cannot decode", async () => {
    const model = new FakeModel();
    const channel = new KernelChannel(model, () => false, "base64");
    const pending = channel.request("graph");
    model.reply({ type: "response", channel: channel.id, id: 1, ok: true, result: {}, base64_buffers: ["not base64!"] });
    await expect(pending).rejects.toThrow("could not be decoded");
  });
});

describe("KernelChannel behind a relay that passes no binary frames", () => {
  it("takes a text reply to a binary ask, and asks for text from then on", async () => {
    const model = new FakeModel();
    const seen: string[] = [];
    const channel = new KernelChannel(model, () => false, "binary", { onEncoding: (encoding) => seen.push(encoding) });
    const first = channel.request("graph");
    expect(model.sent[0]).not.toHaveProperty("buffers");
    const text = btoa(String.fromCharCode(1, 2, 250));
    model.reply({ type: "response", channel: channel.id, id: 1, ok: true, result: {}, base64_buffers: [text], base64_reason: "gateway" });
    const { buffers } = await first;
    expect(Array.from(new Uint8Array(buffers[0].buffer))).toEqual([1, 2, 250]);
    expect(channel.encoding).toBe("base64");
    expect(seen).toEqual(["base64"]);
    void channel.request("inspect");
    expect(model.sent[1]).toMatchObject({ buffers: "base64", method: "inspect" });
  });

  it("names the text transport when the idle kernel's reply never comes", async () => {
    vi.useFakeTimers();
    const model = new FakeModel();
    const channel = new KernelChannel(model);
    const pending = channel.request("graph", {}, 2_000);
    const failed = expect(pending).rejects.toThrow(/do not reach this page.*TORCHLENS_WIDGETS_TRANSPORT=text.*set_transport\("text"\)/);
    await vi.advanceTimersByTimeAsync(2_500);
    await failed;
  });

  it("says so, with the remedy, when no reply comes while the page sees the kernel busy", async () => {
    vi.useFakeTimers();
    const model = new FakeModel();
    const said: string[] = [];
    // A relay that died at a binary frame: the kernel's "idle" never reaches the page either.
    const channel = new KernelChannel(model, () => true, "binary", { onSilence: (text) => said.push(text) });
    const pending = channel.request("assets").catch((error: Error) => error);
    await vi.advanceTimersByTimeAsync(SILENCE_MS - 2_000);
    expect(said).toEqual([]);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/No reply from the kernel for 3\d s\..*TORCHLENS_WIDGETS_TRANSPORT=text/);
    await vi.advanceTimersByTimeAsync(SILENCE_MS);
    expect(said).toHaveLength(1); // once per silence, not a stream of notices
    channel.dispose();
    expect(await pending).toBeInstanceOf(RequestError);
  });

  it("stays quiet while replies keep coming", async () => {
    vi.useFakeTimers();
    const model = new FakeModel();
    const said: string[] = [];
    const channel = new KernelChannel(model, () => true, "binary", { onSilence: (text) => said.push(text) });
    for (let id = 1; id <= 4; id++) {
      void channel.request("inspect");
      await vi.advanceTimersByTimeAsync(SILENCE_MS / 2);
      model.reply({ type: "response", channel: channel.id, id, ok: true, result: {} });
    }
    await vi.advanceTimersByTimeAsync(SILENCE_MS * 2);
    expect(said).toEqual([]);
  });
});
