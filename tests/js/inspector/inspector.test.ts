import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { InspectorPanel, INSPECTOR_STYLES } from "../../../js/inspector/inspector";
import {
  binRange,
  bufferAt,
  copyExpression,
  decodeUint32LE,
  describeCoverage,
  heatColor,
  heatmapCssSize,
  heatmapRGBA,
  histogramBars,
  NONFINITE_COLORS,
  statsRows,
} from "../../../js/inspector/inspector-values";
import { parseInspectReply, type PanelInspectReply, type TensorStats } from "../../../js/kernel/protocol";

const STATS: TensorStats = {
  count: 10,
  finite_count: 7,
  zero_count: 2,
  nan_count: 2,
  posinf_count: 1,
  neginf_count: 0,
  zero_fraction: 0.2,
  nonfinite_fraction: 0.3,
  min: -1.5,
  max: 2,
  mean: 0.25,
  std: 1.125,
  std_correction: 1,
  numel: 10,
  sample_size: 10,
  sampled: false,
  stride: 1,
};

describe("statistics text", () => {
  it("lists min/max/mean/std, fractions, and the non-finite counts when there are any", () => {
    const rows = Object.fromEntries(statsRows(STATS));
    expect(rows).toMatchObject({ min: "-1.5", max: "2", mean: "0.25", std: "1.125", zeros: "20%", "non-finite": "30%" });
    expect(rows["NaN / +Inf / -Inf"]).toBe("2 / 1 / 0");
    expect(Object.keys(Object.fromEntries(statsRows({ ...STATS, finite_count: 10 })))).not.toContain("NaN / +Inf / -Inf");
    expect(statsRows(STATS, "abs")[0][0]).toBe("|x| min");
  });
  it("says when the numbers come from a sample", () => {
    expect(describeCoverage(STATS)).toBe("all 10 elements");
    expect(describeCoverage({ numel: 100_000_000, sample_size: 3_703_704, sampled: true, stride: 27 })).toBe(
      "sampled: 3,703,704 of 100,000,000 elements (every 27th, deterministic)",
    );
  });
});

describe("histogram", () => {
  it("decodes little-endian uint32 counts at any byte offset", () => {
    const bytes = new Uint8Array(1 + 12);
    const view = new DataView(bytes.buffer, 1, 12);
    for (const [i, v] of [1, 70000, 0xffffffff].entries()) view.setUint32(i * 4, v, true);
    expect(Array.from(decodeUint32LE(view))).toEqual([1, 70000, 0xffffffff]);
  });
  it("scales the tallest bin to the full height and keeps small non-zero bins visible", () => {
    const bars = histogramBars([0, 1, 1000, 500], 40, 100);
    expect(bars.map((b) => b.height)).toEqual([0, 1, 100, 50]);
    expect(bars.map((b) => b.x)).toEqual([0, 10, 20, 30]);
    expect(bars[2].y).toBe(0);
    expect(bars[3].y).toBe(50);
    expect(histogramBars([0, 0], 10, 10).every((b) => b.height === 0)).toBe(true);
    expect(histogramBars([], 10, 10)).toEqual([]);
  });
  it("can use a log scale", () => {
    const [small, big] = histogramBars([9, 99], 2, 100, "log");
    expect(big.height).toBe(100);
    expect(small.height).toBeCloseTo((Math.log1p(9) / Math.log1p(99)) * 100);
  });
  it("gives each bin its value range, the last one closed at hi", () => {
    expect(binRange({ lo: -1, hi: 1, bins: 4 }, 0)).toEqual([-1, -0.5]);
    expect(binRange({ lo: -1, hi: 1, bins: 4 }, 3)).toEqual([0.5, 1]);
  });
});

describe("heatmap", () => {
  it("maps 0 and 255 to the ends of viridis and is monotone in brightness", () => {
    expect(heatColor(0)).toEqual([68, 1, 84]);
    expect(heatColor(255)).toEqual([253, 231, 37]);
    expect(heatColor(-5)).toEqual(heatColor(0));
    expect(heatColor(999)).toEqual(heatColor(255));
    const luma = (v: number) => {
      const [r, g, b] = heatColor(v);
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    for (let v = 0; v < 255; v += 15) expect(luma(v + 15)).toBeGreaterThan(luma(v));
  });
  it("draws non-finite cells in their own colours", () => {
    const rgba = heatmapRGBA(new Uint8Array([0, 255, 0, 0]), new Uint8Array([0, 0, 1, 3]), 2, 2);
    expect(Array.from(rgba.slice(0, 4))).toEqual([68, 1, 84, 255]);
    expect(Array.from(rgba.slice(4, 8))).toEqual([253, 231, 37, 255]);
    expect(Array.from(rgba.slice(8, 11))).toEqual(NONFINITE_COLORS[1]);
    expect(Array.from(rgba.slice(12, 15))).toEqual(NONFINITE_COLORS[3]);
    expect(heatmapRGBA(new Uint8Array([7]), null, 1, 1).length).toBe(4);
  });
  it("sizes square cells to fit, and a 1-row strip stays visible", () => {
    expect(heatmapCssSize(3, 8, 512)).toEqual({ width: 96, height: 36 });
    expect(heatmapCssSize(128, 256, 512)).toEqual({ width: 512, height: 256 });
    expect(heatmapCssSize(128, 256, 336)).toEqual({ width: 256, height: 128 });
    expect(heatmapCssSize(1, 256, 512)).toEqual({ width: 512, height: 12 });
    expect(heatmapCssSize(2, 4096, 512)).toEqual({ width: 4096, height: 12 });
  });
  it("checks buffer lengths before use", () => {
    const views = [new DataView(new ArrayBuffer(6))];
    expect(bufferAt(views, 0, 6)).toBe(views[0]);
    expect(bufferAt(views, 0, 8)).toBeNull();
    expect(bufferAt(views, 1, 6)).toBeNull();
    expect(bufferAt(views, null, 6)).toBeNull();
  });
});

describe("copyExpression", () => {
  it("writes to the clipboard when there is one", async () => {
    const writeText = vi.fn(async () => {});
    const select = vi.fn();
    await expect(copyExpression('log["linear_1_1:1"]', { writeText }, select)).resolves.toBe("copied");
    expect(writeText).toHaveBeenCalledWith('log["linear_1_1:1"]');
    expect(select).not.toHaveBeenCalled();
  });
  it("selects the text when the clipboard is missing or refuses", async () => {
    const select = vi.fn();
    await expect(copyExpression("x", undefined, select)).resolves.toBe("selected");
    const refuse = { writeText: vi.fn(async () => Promise.reject(new Error("denied"))) };
    await expect(copyExpression("x", refuse, select)).resolves.toBe("selected");
    expect(select).toHaveBeenCalledTimes(2);
  });
});

// ----- the panel, on a minimal stand-in DOM (no DOM library in this node environment) ------------------

class FakeNode {
  children: FakeNode[] = [];
  attributes: Record<string, string> = {};
  dataset: Record<string, string> = {};
  style: Record<string, string> = {};
  className = "";
  title = "";
  type = "";
  scope = "";
  width = 0;
  height = 0;
  private text = "";
  listeners: Record<string, (() => void)[]> = {};
  constructor(readonly tagName: string) {}
  get textContent(): string {
    return this.text + this.children.map((c) => (typeof c === "string" ? c : c.textContent)).join("");
  }
  set textContent(value: string) {
    this.text = value;
    this.children = [];
  }
  get innerHTML(): string {
    throw new Error("the inspector must not use innerHTML");
  }
  set innerHTML(_value: string) {
    throw new Error("the inspector must not use innerHTML");
  }
  append(...nodes: (FakeNode | string)[]) {
    for (const node of nodes) {
      if (typeof node === "string") {
        const text = new FakeNode("#text");
        text.textContent = node;
        this.children.push(text);
      } else this.children.push(node);
    }
  }
  replaceChildren(...nodes: FakeNode[]) {
    this.text = "";
    this.children = [];
    this.append(...nodes);
  }
  setAttribute(name: string, value: string) {
    this.attributes[name] = value;
  }
  addEventListener(event: string, listener: () => void) {
    this.listeners[event] ??= [];
    this.listeners[event].push(listener);
  }
  getContext() {
    return null; // the panel must cope without a 2-D context
  }
  remove() {}
  findAll(predicate: (node: FakeNode) => boolean): FakeNode[] {
    const found = predicate(this) ? [this as FakeNode] : [];
    return found.concat(...this.children.map((c) => c.findAll(predicate)));
  }
}

function fakeDocument(): Document {
  return {
    createElement: (tag: string) => new FakeNode(tag),
    createElementNS: (_ns: string, tag: string) => new FakeNode(tag),
    defaultView: null,
  } as unknown as Document;
}

function headerWith(hostile: string): PanelInspectReply {
  return {
    kind: "op",
    label: "linear_1_1:1",
    title: hostile,
    privacy_profile: "local",
    expression: 'log["linear_1_1:1"]',
    facts: [
      { key: "op", name: "op", value: "linear", text: "linear" },
      { key: "source", name: "source", value: null, text: hostile, detail: `/full/${hostile}` },
      { key: "device", name: "device", value: null, text: null },
    ],
    value: {
      status: "summary",
      source: 'log["linear_1_1:1"].out',
      shape: [2, 3],
      dtype: "float32",
      numel: 6,
      stats: { ...STATS, count: 6, finite_count: 6, numel: 6, sample_size: 6 },
      histogram: { bins: 4, lo: -1, hi: 1, buffer: 0, dtype: "uint32le", total: 6 },
      heatmap: {
        rows: 2,
        cols: 3,
        slice: "[:, :]",
        slice_shape: [2, 3],
        stride: [1, 1],
        sampled: false,
        pooled: false,
        lo: -1,
        hi: 1,
        encoding: "uint8",
        buffer: 1,
        mask_buffer: null,
      },
    },
  };
}

describe("InspectorPanel", () => {
  const hostile = '<img src=x onerror="alert(1)">';
  const counts = new DataView(new Uint32Array([1, 2, 0, 3]).buffer);
  const cells = new DataView(new Uint8Array([0, 50, 100, 150, 200, 255]).buffer);

  it("renders facts, stats, histogram and heatmap with data as text only", () => {
    const panel = new InspectorPanel(fakeDocument());
    const root = panel.root as unknown as FakeNode;
    expect(root.dataset.state).toBe("empty");
    panel.update(headerWith(hostile), [counts, cells]);
    expect(root.dataset.state).toBe("node");
    const text = root.textContent;
    expect(text).toContain(hostile); // shown literally, as text
    expect(text).toContain('log["linear_1_1:1"]');
    expect(text).toContain("all 6 elements");
    expect(text).toContain("–"); // the fact without a value
    expect(root.findAll((n) => n.tagName === "rect")).toHaveLength(3); // the empty bin draws nothing
    const canvas = root.findAll((n) => n.tagName === "canvas")[0];
    expect([canvas.width, canvas.height]).toEqual([3, 2]);
    expect(root.findAll((n) => n.tagName === "img")).toHaveLength(0);
  });

  it("shows the kernel's message when there is no value summary, and clears", () => {
    const panel = new InspectorPanel(fakeDocument());
    const root = panel.root as unknown as FakeNode;
    const header = headerWith("linear_1_1:1");
    header.value = { status: "not_saved", message: "Value not saved: … Remedy: re-run with save=…" };
    panel.update(header, []);
    expect(root.textContent).toContain("Remedy: re-run with save=");
    expect(root.findAll((n) => n.tagName === "canvas")).toHaveLength(0);
    panel.showMessage("Inspecting…");
    expect(root.textContent).toBe("Inspecting…");
    panel.clear();
    expect(root.dataset.state).toBe("empty");
  });

  it("refuses buffers of the wrong size instead of drawing garbage", () => {
    const panel = new InspectorPanel(fakeDocument());
    panel.update(headerWith("t"), [new DataView(new ArrayBuffer(3)), cells]);
    expect((panel.root as unknown as FakeNode).textContent).toContain("histogram: missing data");
  });

  it("module records show facts only", () => {
    const panel = new InspectorPanel(fakeDocument());
    const header: PanelInspectReply = { ...headerWith("t"), kind: "module", expression: 'log.modules["encoder"]', value: null };
    panel.update(header, []);
    const root = panel.root as unknown as FakeNode;
    expect(root.dataset.kind).toBe("module");
    expect(root.textContent).toContain('log.modules["encoder"]');
    expect(root.findAll((n) => n.tagName === "section")).toHaveLength(0);
  });

  it("shows a partial capture's exception in an alert box above the facts, as text", () => {
    const panel = new InspectorPanel(fakeDocument());
    panel.update({ ...headerWith("t"), exception: `RuntimeError: ${hostile}` }, []);
    const root = panel.root as unknown as FakeNode;
    const [box] = root.findAll((n) => n.className === "tlw-insp-exception");
    expect(box.attributes.role).toBe("alert");
    expect(box.textContent).toContain(`RuntimeError: ${hostile}`);
    const order = root.children.map((n) => n.className);
    expect(order.indexOf("tlw-insp-exception")).toBeLessThan(order.indexOf("tlw-insp-facts"));
    expect(root.findAll((n) => n.tagName === "img")).toHaveLength(0);
    panel.update(headerWith("t"), []); // a record that ran: no box
    expect(root.findAll((n) => n.className === "tlw-insp-exception")).toHaveLength(0);
  });

  it("offers upstream and downstream lineage of a record once asked to, and says which was clicked", () => {
    const panel = new InspectorPanel(fakeDocument());
    const root = panel.root as unknown as FakeNode;
    const buttons = () => root.findAll((n) => n.className === "tlw-insp-lineage-button");
    panel.update(headerWith("t"), []);
    expect(buttons()).toHaveLength(0); // no kernel to ask (a saved page)
    const asked: string[] = [];
    panel.setLineageHandler((direction) => asked.push(direction));
    panel.update(headerWith("t"), []);
    expect(buttons().map((n) => n.textContent)).toEqual(["upstream", "downstream"]);
    for (const button of buttons()) for (const listener of button.listeners.click) listener();
    expect(asked).toEqual(["upstream", "downstream"]);
    panel.update({ ...headerWith("t"), kind: "difference" }, []); // b - a has no lineage of its own
    expect(buttons()).toHaveLength(0);
  });

  it("shows the node against the baseline: torchlens' row and the summary of the difference, as the kernel sent it", () => {
    const { result, buffer_bytes } = JSON.parse(
      readFileSync(path.resolve(__dirname, "../../fixtures/protocol/inspect-baseline.json"), "utf8"),
    );
    const reply = parseInspectReply(result);
    if (reply.kind === "none") throw new Error("the fixture selects a node");
    const buffers = (buffer_bytes as number[]).map((size) => new DataView(new ArrayBuffer(size)));
    const panel = new InspectorPanel(fakeDocument());
    panel.update(reply, buffers);
    const root = panel.root as unknown as FakeNode;
    const [section] = root.findAll((n) => n.className === "tlw-insp-baseline");
    expect(section.dataset.status).toBe("changed");
    expect(section.children[0].textContent).toBe("vs before");
    expect(section.textContent).toContain("1.244"); // torchlens' max |Δ|
    expect(section.textContent).toContain('log["linear_2_3:1"].out - ref["linear_2_3:1"].out');
    // Its own histogram and heatmap, from the buffers after the node's own.
    expect(section.findAll((n) => n.tagName === "canvas")).toHaveLength(1);
    expect(section.findAll((n) => n.tagName === "svg")).toHaveLength(1);
    expect(root.findAll((n) => n.tagName === "canvas")).toHaveLength(2);
    const order = root.children.map((n) => n.className);
    expect(order.indexOf("tlw-insp-baseline")).toBeGreaterThan(order.indexOf("tlw-insp-facts"));
    expect(order.indexOf("tlw-insp-baseline")).toBeLessThan(order.indexOf("tlw-insp-value"));
    // A node the baseline lacks says so, as text; a reply without the section (cleared) shows none.
    panel.update({ ...reply, baseline: { reference: hostile, facts: [], value: null, message: `not in ${hostile}` } }, buffers);
    const [lacking] = root.findAll((n) => n.className === "tlw-insp-baseline");
    expect(lacking.dataset.status).toBe("none");
    expect(lacking.textContent).toBe(`vs ${hostile}not in ${hostile}`);
    expect(root.findAll((n) => n.tagName === "img")).toHaveLength(0);
    panel.update(headerWith("t"), buffers);
    expect(root.findAll((n) => n.className === "tlw-insp-baseline")).toHaveLength(0);
  });

  it("shows the op's memory as the kernel sent it: each tensor alive a link that selects its producer", () => {
    const { result } = JSON.parse(readFileSync(path.resolve(__dirname, "../../fixtures/protocol/inspect-memory.json"), "utf8"));
    const reply = parseInspectReply(result);
    if (reply.kind === "none" || !reply.memory) throw new Error("the fixture selects an op with the memory overlay on");
    const panel = new InspectorPanel(fakeDocument());
    const root = panel.root as unknown as FakeNode;
    const links = () => root.findAll((n) => n.className === "tlw-insp-memory-link");
    panel.update(reply, []);
    const [box] = root.findAll((n) => n.className === "tlw-insp-memory");
    expect(box.textContent).toContain("472 B alive when it ran");
    expect(box.textContent).toContain("240 B above the 232 B baseline; estimated logical bytes, not allocator residency");
    expect(box.textContent).toContain("module act");
    expect(links()).toHaveLength(0); // no kernel to tell (a saved page): the ops are plain text
    const selected: string[] = [];
    panel.setSelectHandler((nodeId) => selected.push(nodeId));
    panel.update(reply, []);
    expect(links().map((n) => n.textContent)).toEqual(reply.memory.alive.map((row) => row.label));
    links()[0].listeners.click[0]();
    expect(selected).toEqual([reply.memory.alive[0].node_id]);
    // A producer the viewer does not draw is named, not linked; a hostile label stays text.
    const hostile = "<img src=x onerror=alert(1)>";
    const alive = [{ ...reply.memory.alive[0], label: hostile, node_id: "" }];
    panel.update({ ...reply, memory: { ...reply.memory, alive } }, []);
    expect(links()).toHaveLength(0);
    expect(root.findAll((n) => n.tagName === "img")).toHaveLength(0);
    expect(root.findAll((n) => n.className === "tlw-insp-memory")[0].textContent).toContain(hostile);
    panel.update(headerWith("t"), []); // memory off: no box
    expect(root.findAll((n) => n.className === "tlw-insp-memory")).toHaveLength(0);
  });

  it("ships its styles scoped under .tlw-inspector", () => {
    expect(INSPECTOR_STYLES).toContain(".tlw-inspector");
    for (const rule of INSPECTOR_STYLES.split("}")
      .map((r) => r.trim())
      .filter(Boolean)) {
      expect(rule.startsWith(".tlw-insp") || rule.startsWith(".tlw-inspector")).toBe(true);
    }
  });
});
