// Inside the Model Explorer frame (frame-shim.ts): a highlight marks nodes of the graph already drawn.
// The app's node styler (its "Custom node styler" panel) repaints the nodes each rule matches, in every
// pane, with no layout; the widget's marks are rules of it, told apart from the user's own by a field of
// their own, which the app keeps (the styler through app-internals.ts). Each layer around a marked op
// gets the mark's border too, as Netron's module boxes do: a collapsed layer stands for the ops inside.
import { appRenderer, appRenderers, type CollectionGraph, type ModelGraph, type NodeStylerRule, ROOT_NAMESPACE } from "./app-internals";
import { SHIM_MARK, SHIM_MARKED, type NodeMark, type ShimMarkMessage, type ShimPost } from "../protocol";
import { paintedStill } from "./shim-still";

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The labels `nodeIds` have as the app's styler reads them (line breaks dropped), in the graphs drawn
 * and in every graph the app loaded (a graph picked later in its menu keeps the marks); null when one
 * of the ids has none (then no rule may filter by label).
 */
export function markedLabels(drawn: ModelGraph[], loaded: CollectionGraph[], nodeIds: string[]): Set<string> | null {
  const wanted = new Set(nodeIds);
  const labelsOf = new Map<string, Set<string>>();
  const add = (nodeId: string, label: unknown) => {
    if (typeof label !== "string") return;
    labelsOf.set(nodeId, (labelsOf.get(nodeId) ?? new Set()).add(label.replace(/\n/g, "")));
  };
  for (const graph of drawn) for (const nodeId of wanted) add(nodeId, graph.nodesById[nodeId]?.label);
  for (const graph of loaded) for (const node of graph.nodes) if (wanted.has(node.id)) add(node.id, node.label);
  if (labelsOf.size < wanted.size) return null;
  return new Set([...labelsOf.values()].flatMap((labels) => [...labels]));
}

/**
 * The app's rule for one mark: the op nodes whose id is one of the mark's (its "id" attribute), whose
 * `labels` (markedLabels) it also names. The app tries a rule's queries in order on every node of the
 * graph and stops at the first that fails: the type, then the label (one test), turn most nodes away
 * before the id's, which it tests on each of a node's attributes written out ("key:value"), a few dozen
 * per op of a torchlens graph.
 */
export function markRule(mark: NodeMark, labels: Set<string> | null = null): NodeStylerRule {
  const styles: NodeStylerRule["styles"] = { node_border_color: { id: "node_border_color", value: mark.border } };
  if (mark.fill) styles.node_bg_color = { id: "node_bg_color", value: mark.fill };
  const byLabel = labels ? [{ type: "regex", queryRegex: `^(${[...labels].map(escapeRegex).join("|")})$`, matchTypes: ["title"] }] : [];
  return {
    queries: [
      { type: "node_type", nodeType: "op_nodes" },
      ...byLabel,
      // "list" matches a node's attributes as "key:value" (the app adds the node's id as one).
      { type: "regex", queryRegex: `^id:(${mark.nodeIds.map(escapeRegex).join("|")})$`, matchTypes: ["list"] },
    ],
    nodeType: "op_nodes",
    styles,
    tlwMark: true,
  };
}

/**
 * The layers around `nodeIds` in `graphs`, as the app names them: the labels of the marked layers by
 * the path of the layer that holds them.
 */
export function enclosingLayers(graphs: ModelGraph[], nodeIds: string[]): Map<string, Set<string>> {
  const byParent = new Map<string, Set<string>>();
  for (const graph of graphs)
    for (const nodeId of nodeIds) {
      const path = (graph.nodesById[nodeId]?.namespace ?? "").split("/").filter(Boolean);
      path.forEach((label, depth) => {
        const parent = path.slice(0, depth).join("/") || ROOT_NAMESPACE;
        byParent.set(parent, (byParent.get(parent) ?? new Set()).add(label));
      });
    }
  return byParent;
}

/** The app's rules that border the layers around a mark's nodes in its colour (one per parent layer). */
export function layerRules(mark: NodeMark, graphs: ModelGraph[]): NodeStylerRule[] {
  return [...enclosingLayers(graphs, mark.nodeIds)].map(([parent, labels]) => ({
    // The app stops at the first query that fails: the type turns an op node away before any regex
    // runs, the label (one test) most layers before the path, which is tested on each of the layer's
    // attributes written out.
    queries: [
      { type: "node_type", nodeType: "layer_nodes" },
      { type: "regex", queryRegex: `^(${[...labels].map(escapeRegex).join("|")})$`, matchTypes: ["title"] },
      { type: "regex", queryRegex: `^namespace:${escapeRegex(parent)}$`, matchTypes: ["list"] },
    ],
    nodeType: "layer_nodes",
    styles: { node_border_color: { id: "node_border_color", value: mark.border } },
    tlwMark: true,
  }));
}

/**
 * Replaces the widget's rules of the app's node styler with `marks`. The app paints a node by the first
 * rule that matches it: the marks come first (what the user just asked), the user's own rules after.
 */
export function applyMarks(marks: NodeMark[]): void {
  const styler = appRenderer()?.nodeStylerService;
  if (!styler || typeof styler.rules?.set !== "function") throw new Error("this Model Explorer has no node styler on window.me_test");
  const users = styler.rules().filter((rule) => !rule.tlwMark);
  const graphs = appRenderers().flatMap((renderer) => (renderer.curModelGraph ? [renderer.curModelGraph] : []));
  const loaded = (appRenderer()?.appService?.curGraphCollections?.() ?? []).flatMap((collection) => collection.graphs);
  const shown = marks.filter((mark) => mark.nodeIds.length);
  const opRules = shown.map((mark) => markRule(mark, markedLabels(graphs, loaded, mark.nodeIds)));
  styler.rules.set([...opRules, ...shown.flatMap((mark) => layerRules(mark, graphs)), ...users]);
}

/**
 * Answers SHIM_MARK with SHIM_MARKED once the marks are on the canvas (a failure is reported as the
 * app's own errors are: the frame keeps drawing).
 */
export function answerMarks(post: ShimPost, trusted: (event: Event) => boolean): void {
  window.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as ShimMarkMessage | undefined;
    if (event.source !== window.parent || !trusted(event) || data?.cmd !== SHIM_MARK) return;
    let painted: Promise<void>;
    try {
      painted = paintedStill(() => applyMarks(data.marks)); // the styler's new rules redraw the scene
    } catch (error) {
      console.error(`The widget could not mark nodes in Model Explorer: ${String(error)}`);
      return;
    }
    void painted.then(() => post({ cmd: SHIM_MARKED, id: data.id }));
  });
}
