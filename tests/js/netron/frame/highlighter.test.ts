// @vitest-environment happy-dom
// The Netron frame's highlight painter on a stand-in of Netron's drawn graph (grapher.js builds each
// box as <g class="node graph-node"> holding its parts and a path.node-border): the named boxes get
// the highlight class, nothing else does, and a redraw (a new graph) is marked again.
import { beforeEach, describe, expect, it } from "vitest";
import { NOT_IN_EVERY_RUN_BORDER } from "../../../../js/kernel/protocol";
import {
  checkHighlight,
  HIGHLIGHT_CLASS,
  HIGHLIGHT_CSS,
  HighlightPainter,
  RUN_MARK_CLASS,
  RunMarkPainter,
  roleClass,
} from "../../../../js/netron/frame/highlighter";
import type { ViewGraph } from "../../../../js/netron/frame/netron-view";

const SVG_NS = "http://www.w3.org/2000/svg";

/** A box as grapher.Node.build draws it. */
function box(canvas: Element, className = "node graph-node"): Element {
  const element = document.createElementNS(SVG_NS, "g");
  element.setAttribute("class", className);
  const item = document.createElementNS(SVG_NS, "g");
  item.setAttribute("class", "node-item");
  item.append(document.createElementNS(SVG_NS, "path"));
  const border = document.createElementNS(SVG_NS, "path");
  border.setAttribute("class", "node node-border");
  element.append(item, border);
  canvas.append(element);
  return element;
}

/** view.Graph as the painter reads it: node key -> { label: { value: { name }, element, blocks } }. */
function graph(names: string[], blocks: Record<string, ViewGraph> = {}): { graph: ViewGraph; boxes: Map<string, Element> } {
  const canvas = document.createElementNS(SVG_NS, "svg");
  canvas.id = "canvas";
  document.body.replaceChildren(canvas);
  const boxes = new Map<string, Element>();
  const nodes = new Map<string, { label?: unknown }>();
  names.forEach((name, i) => {
    const element = box(canvas);
    boxes.set(name, element);
    nodes.set(String(i), { label: { value: { name }, element, blocks: blocks[name] ? [{ target: blocks[name] }] : [] } });
  });
  // A graph input is named after the tensor it carries (the producing op's label): never marked.
  nodes.set("input", { label: { value: { name: names[0] }, element: box(canvas, "node graph-input") } });
  return { graph: { nodes } as unknown as ViewGraph, boxes };
}

const marked = () => [...document.getElementsByClassName(HIGHLIGHT_CLASS)];

describe("HighlightPainter", () => {
  beforeEach(() => {
    document.head.replaceChildren();
  });

  it("marks exactly the named op and module-call boxes, and clears", () => {
    const painter = new HighlightPainter();
    const { graph: drawn, boxes } = graph(["linear_1_1", "relu_1_2", "encoder.layer.0"]);
    painter.set(["relu_1_2", "encoder.layer.0", "not_drawn"], {}, drawn);
    expect(marked()).toEqual([boxes.get("relu_1_2"), boxes.get("encoder.layer.0")]);
    expect(boxes.get("linear_1_1")?.classList.contains(HIGHLIGHT_CLASS)).toBe(false);
    painter.set([], {}, drawn);
    expect(marked()).toEqual([]);
  });

  it("marks the boxes of a sub-graph drawn inside an expanded block", () => {
    const painter = new HighlightPainter();
    const inner = graph(["add_1_3"]);
    const innerGraph = inner.graph;
    const innerBox = inner.boxes.get("add_1_3")!;
    const { graph: drawn } = graph(["block_call"], { block_call: innerGraph });
    document.body.append(innerBox); // graph() replaced the body: put the inner box back on screen
    painter.set(["add_1_3"], {}, drawn);
    expect(marked()).toEqual([innerBox]);
  });

  it("keeps the names and marks them again on the next graph Netron draws (drill in/out, open)", () => {
    const painter = new HighlightPainter();
    painter.set(["relu_1_2"], {}, graph(["linear_1_1"]).graph); // not on screen yet
    expect(marked()).toEqual([]);
    const next = graph(["relu_1_2", "linear_1_1"]);
    expect(painter.apply(next.graph)).toBe(1);
    expect(marked()).toEqual([next.boxes.get("relu_1_2")]);
    expect(painter.apply(null)).toBe(0); // nothing on screen
    expect(marked()).toEqual([]);
  });

  it("marks a producer and its carriers in their roles, drops unknown roles, and a plain highlight clears the roles", () => {
    const painter = new HighlightPainter();
    const { graph: drawn, boxes } = graph(["log_1_1", "mul_1_2", "add_1_3"]);
    painter.set(["log_1_1", "mul_1_2", "add_1_3"], { log_1_1: "producer", mul_1_2: "propagated", add_1_3: "evil" }, drawn);
    expect(marked()).toHaveLength(3);
    expect([...document.getElementsByClassName(roleClass("producer"))]).toEqual([boxes.get("log_1_1")]);
    expect([...document.getElementsByClassName(roleClass("propagated"))]).toEqual([boxes.get("mul_1_2")]);
    painter.set(["add_1_3"], {}, drawn);
    expect(marked()).toEqual([boxes.get("add_1_3")]);
    expect(document.getElementsByClassName(roleClass("producer"))).toHaveLength(0);
    expect(document.getElementsByClassName(roleClass("propagated"))).toHaveLength(0);
    const css = document.head.querySelector("style")?.textContent ?? "";
    expect(css).toMatch(/\.tlw-producer > path\.node-border \{[^}]*stroke: #D81B60;[^}]*stroke-width: 5px/);
    expect(css).toMatch(/\.tlw-propagated > path\.node-border \{[^}]*stroke: #7B1FA2;/);
  });

  it("ignores what is not a name (the frame trusts nothing it is sent)", () => {
    expect([...checkHighlight(["a", 3, null, "", "b", "a"])]).toEqual(["a", "b"]);
    expect([...checkHighlight("a")]).toEqual([]);
    expect([...checkHighlight(null)]).toEqual([]);
  });

  it("draws a dashed magenta border, and lets Netron's red selection border win on a selected box", () => {
    new HighlightPainter();
    const css = document.head.querySelector("style")?.textContent ?? "";
    expect(css).toBe(HIGHLIGHT_CSS);
    expect(css).toMatch(/g\.node\.tlw-highlight > path\.node-border \{[^}]*stroke: #D81B60;[^}]*stroke-dasharray/);
    expect(css).toMatch(/g\.node\.tlw-highlight\.select > path\.node-border \{[^}]*stroke: rgba\(220, 0, 0/);
  });
});

describe("RunMarkPainter", () => {
  beforeEach(() => {
    document.head.replaceChildren();
  });

  it("borders the boxes of ops some runs lack, on every graph drawn, under the highlight's rules", () => {
    const marks = new RunMarkPainter();
    new HighlightPainter(); // made after: its rules come later in the document and win
    const first = graph(["linear_1_1", "mul_1_4"]);
    marks.set(["mul_1_4", "not_drawn"], first.graph);
    const bordered = () => [...document.getElementsByClassName(RUN_MARK_CLASS)];
    expect(bordered()).toEqual([first.boxes.get("mul_1_4")]);
    const again = graph(["mul_1_4"]); // Netron drew a new SVG (an open, a drill)
    expect(marks.apply(again.graph)).toBe(1);
    expect(bordered()).toEqual([again.boxes.get("mul_1_4")]);
    const styles = [...document.head.querySelectorAll("style")].map((style) => style.textContent ?? "");
    expect(styles[0]).toContain(`g.node.${RUN_MARK_CLASS} > path.node-border { stroke: ${NOT_IN_EVERY_RUN_BORDER}`);
    expect(styles[1]).toContain(HIGHLIGHT_CLASS);
    marks.set([], again.graph);
    expect(bordered()).toEqual([]);
  });
});
