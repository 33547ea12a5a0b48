// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { applyMarks, enclosingLayers, layerRules, markedLabels, markRule } from "../../../../js/model-explorer/frame/shim-marks";
import { nodeMarks } from "../../../../js/model-explorer/marks";
import { HIGHLIGHT_COLOUR, HIGHLIGHT_FILL, HIGHLIGHT_ROLE_COLOURS, HIGHLIGHT_ROLE_FILLS } from "../../../../js/kernel/protocol";

/** The app's node styler as window.me_test reaches it: a signal of rules. */
function fakeStyler(initial: unknown[] = []) {
  let rules = initial;
  const signal = Object.assign(() => rules, { set: (next: unknown[]) => (rules = next) });
  window.me_test = { renderers: { "0": { nodeStylerService: { rules: signal } } as never } };
  return () => rules;
}

describe("highlights marked on Model Explorer's drawn graph", () => {
  afterEach(() => {
    delete window.me_test;
  });

  it("matches exactly the op nodes of the mark's ids, whatever their characters", () => {
    const rule = markRule({ nodeIds: ["s1|lm_head|linear||1|1", "a.b(2)"], border: "#D81B60" });
    expect(rule.queries).toHaveLength(2); // no labels known: by type and id only
    expect(rule.queries[0]).toEqual({ type: "node_type", nodeType: "op_nodes" });
    const regex = new RegExp(String(rule.queries[1].queryRegex), "i"); // as the app compiles it
    expect(regex.test("id:s1|lm_head|linear||1|1")).toBe(true);
    expect(regex.test("id:a.b(2)")).toBe(true);
    expect(regex.test("id:s1")).toBe(false);
    expect(regex.test("id:aXb(2)")).toBe(false);
    expect(regex.test("label:a.b(2)")).toBe(false);
    expect(rule.styles).toEqual({ node_border_color: { id: "node_border_color", value: "#D81B60" } });
  });

  it("turns away, by label, the nodes no marked op is titled as, before trying their ids", () => {
    const drawn = { id: "g", collectionLabel: "c", nodesById: { a: { label: "addmm" }, b: { label: "view\n(2)" } } };
    const loaded = [
      {
        id: "rolled",
        nodes: [
          { id: "a", label: "addmm (x3)" },
          { id: "c", label: "relu" },
        ],
      },
    ];
    const labels = markedLabels([drawn], loaded, ["a", "b"]);
    expect(labels).toEqual(new Set(["addmm", "view(2)", "addmm (x3)"])); // as the app reads titles: no line breaks
    const rule = markRule({ nodeIds: ["a", "b"], border: "#D81B60" }, labels);
    expect(rule.queries.map((query) => query.type)).toEqual(["node_type", "regex", "regex"]);
    expect(rule.queries[1].matchTypes).toEqual(["title"]);
    const title = new RegExp(String(rule.queries[1].queryRegex), "i");
    expect(["addmm", "view(2)", "addmm (x3)"].every((label) => title.test(label))).toBe(true);
    expect(title.test("relu")).toBe(false);
    expect(title.test("addmm_2")).toBe(false);
    // An id with no label anywhere: no rule may filter by label (it would miss that node).
    expect(markedLabels([drawn], loaded, ["a", "gone"])).toBeNull();
  });

  it("puts its marks before the user's own rules (the first match paints) and replaces only its own", () => {
    const userRule = { queries: [], nodeType: "op_nodes", styles: {} };
    const rules = fakeStyler([userRule]);
    applyMarks([{ nodeIds: ["a"], border: "#111111", fill: "#222222" }]);
    expect(rules()).toHaveLength(2);
    expect(rules()[1]).toBe(userRule);
    applyMarks([{ nodeIds: ["b"], border: "#333333" }]);
    expect(rules()).toHaveLength(2);
    expect(JSON.stringify(rules()[0])).toContain("^id:(b)$");
    applyMarks([]);
    expect(rules()).toEqual([userRule]);
  });

  it("borders every layer around a marked op, each matched by its label and the path around it", () => {
    const graph = {
      id: "g",
      collectionLabel: "c",
      nodesById: { a: { namespace: "transformer/h.3/mlp" }, b: { namespace: "transformer/h.3" }, top: { namespace: "" } },
    };
    expect(enclosingLayers([graph], ["a", "b", "top", "gone"])).toEqual(
      new Map([
        ["<root>", new Set(["transformer"])],
        ["transformer", new Set(["h.3"])],
        ["transformer/h.3", new Set(["mlp"])],
      ]),
    );
    const rules = layerRules({ nodeIds: ["a"], border: "#D81B60", fill: "#FCE4EC" }, [graph]);
    expect(rules).toHaveLength(3);
    const [, title, namespace] = rules[1].queries;
    expect(rules[1].queries[0]).toEqual({ type: "node_type", nodeType: "layer_nodes" });
    // as the app compiles and matches them: "namespace:<path around>" among its attributes, its label
    expect(new RegExp(String(namespace.queryRegex), "i").test("namespace:transformer")).toBe(true);
    expect(new RegExp(String(namespace.queryRegex), "i").test("namespace:transformer/h.3")).toBe(false);
    expect(new RegExp(String(title.queryRegex), "i").test("h.3")).toBe(true);
    expect(new RegExp(String(title.queryRegex), "i").test("h.31")).toBe(false);
    expect(new RegExp(String(title.queryRegex), "i").test("hX3")).toBe(false);
    expect(rules[1].styles).toEqual({ node_border_color: { id: "node_border_color", value: "#D81B60" } }); // no fill
  });

  it("puts the layer rules after the op rules, from every pane's graph", () => {
    let rules: unknown[] = [];
    const styler = { rules: Object.assign(() => rules, { set: (next: unknown[]) => (rules = next) }) };
    const graph = (namespace: string) => ({ id: "g", collectionLabel: "c", nodesById: { a: { namespace } } });
    window.me_test = {
      renderers: {
        "0": { nodeStylerService: styler, curModelGraph: graph("x") } as never,
        "1": { curModelGraph: graph("y") } as never,
      },
    };
    applyMarks([{ nodeIds: ["a"], border: "#111111" }]);
    expect(rules).toHaveLength(2); // the op rule, then one rule for the layers under the root: x and y
    expect(JSON.stringify(rules[1])).toContain("^(x|y)$");
  });

  it("says so when the app has no node styler to mark through", () => {
    expect(() => applyMarks([])).toThrow(/no node styler/);
  });

  it("fills a plain highlight pale and boxes it in the highlight colour, each role in its own fill and border", () => {
    // a producer first whatever the order of the ids (its layers take its colour, not its carriers')
    const marks = nodeMarks(["c1", "p", "plain", "c2"], { p: "producer", c1: "propagated", c2: "propagated" });
    expect(marks).toEqual([
      { nodeIds: ["p"], border: HIGHLIGHT_ROLE_COLOURS.producer, fill: HIGHLIGHT_ROLE_FILLS.producer },
      { nodeIds: ["c1", "c2"], border: HIGHLIGHT_ROLE_COLOURS.propagated, fill: HIGHLIGHT_ROLE_FILLS.propagated },
      { nodeIds: ["plain"], border: HIGHLIGHT_COLOUR, fill: HIGHLIGHT_FILL },
    ]);
    expect(nodeMarks([], {})).toEqual([]);
  });
});
