// Inside the Model Explorer frame (frame-shim.ts): a highlight marks nodes of the graph already drawn.
// The app's node styler (its "Custom node styler" panel) repaints the nodes each rule matches, in every
// pane, with no layout; the widget's marks are rules of it, told apart from the user's own by a field of
// their own, which the app keeps (the styler through app-internals.ts). Each layer around a marked op
// gets the mark's border too, as Netron's module boxes do: a collapsed layer stands for the ops inside.
import { appRenderer, appRenderers, type ModelGraph, type NodeStylerRule, ROOT_NAMESPACE } from "./app-internals";
import { SHIM_MARK, SHIM_MARKED, type NodeMark, type ShimMarkMessage, type ShimPost } from "../protocol";
import { paintedStill } from "./shim-still";

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The app's rule for one mark: the op nodes whose id is one of the mark's (its "id" attribute). */
export function markRule(mark: NodeMark): NodeStylerRule {
  const styles: NodeStylerRule["styles"] = { node_border_color: { id: "node_border_color", value: mark.border } };
  if (mark.fill) styles.node_bg_color = { id: "node_bg_color", value: mark.fill };
  return {
    // "list" matches a node's attributes as "key:value" (the app adds the node's id as one).
    queries: [
      { type: "regex", queryRegex: `^id:(${mark.nodeIds.map(escapeRegex).join("|")})$`, matchTypes: ["list"] },
      { type: "node_type", nodeType: "op_nodes" },
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
    // The type first: an op node is turned away before any regex runs.
    queries: [
      { type: "node_type", nodeType: "layer_nodes" },
      { type: "regex", queryRegex: `^namespace:${escapeRegex(parent)}$`, matchTypes: ["list"] },
      { type: "regex", queryRegex: `^(${[...labels].map(escapeRegex).join("|")})$`, matchTypes: ["title"] },
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
  const shown = marks.filter((mark) => mark.nodeIds.length);
  styler.rules.set([...shown.map(markRule), ...shown.flatMap((mark) => layerRules(mark, graphs)), ...users]);
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
