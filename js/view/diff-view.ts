// The diff view (tlw.diff): two captures side by side, no overlay control (the diff colours the
// panes), its summary and largest deltas, and three inspectors under the panes: the selection in
// capture a, in capture b, and what changed between them.
import type { TraitsModel } from "./traits";
import type { ViewKind } from "./view-kind";
import { InspectorPanel } from "../inspector/inspector";
import type { TopDelta } from "./traits";

/** A largest delta as its chip says it: 3 significant digits, or the kernel's word for a NaN or an Inf
 * (JSON has no such number: the value is null). Whatever arrives (a kernel's "nan" string), it never throws. */
export function deltaText(entry: TopDelta): string {
  const value: unknown = entry.value;
  if (typeof value === "number" && Number.isFinite(value)) return value.toPrecision(3);
  if (typeof entry.text === "string" && entry.text) return entry.text;
  return typeof value === "number" || typeof value === "string" ? String(value) : "not comparable";
}

const selectedLabels = (model: TraitsModel): [string, string] => model.get("selected_labels") ?? ["", ""];

export const diffView: ViewKind = {
  attachInspectors(view, model) {
    const panels = [new InspectorPanel(), new InspectorPanel(), new InspectorPanel()];
    view.root.dataset.kind = "diff";
    const side = document.createElement("div");
    side.className = "tlw-side";
    side.append(...panels.map((panel) => panel.root));
    view.attachSide(side);
    view.hideOverlayControl();
    view.setHeight(model.get("height"));
    return panels;
  },
  selectedText(model) {
    const [a, b] = selectedLabels(model);
    return a === b ? a : `${a || "(not in a)"} | ${b || "(not in b)"}`;
  },
  comparison: (model) => model.get("summary")?.line,
  inspectLabels(model) {
    const [a, b] = selectedLabels(model);
    return [a, b, a || b];
  },
  missingLabel: (side) => `Capture ${"ab"[side]} has no such node.`,
  chips: (model, select) =>
    (model.get("summary")?.top ?? []).map((entry) => ({
      text: `${entry.label} ${deltaText(entry)}`,
      onClick: () => select(entry.node_id), // as a click in a pane
    })),
  sideResizable: false,
  lineagePanels: [0, 1], // whichever capture shows the node (the kernel walks the one that has it)
  switchesViewer: false, // a diff is drawn by Model Explorer only
  contexts: 2,
  takesParkedApp: () => false, // the two panes' start state names their graph ids
};
