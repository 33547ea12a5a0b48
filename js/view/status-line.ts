// The status line under the toolbar once a graph is drawn: size, selection, the last debug answer,
// the memory summary, highlights, the comparison and the export's warnings.
import type { TraitsModel, WidgetTraits } from "./traits";
import type { ViewKind } from "./view-kind";

export function nodeCount(info: WidgetTraits["_graph_info"]): number {
  const sizes = Object.values(info.graphs ?? {});
  return sizes.length ? sizes[0] : 0;
}

/** The line; `answerNow` is a debug answer that arrived before its trait. */
export function statusLine(model: TraitsModel, kind: ViewKind, answerNow?: string): string {
  const info = model.get("_graph_info");
  const label = kind.selectedText(model);
  const parts = [`${nodeCount(info)} nodes`, label ? `selected ${label}` : "click a node to select it"];
  // The last debug answer leads: it is what the user asked for (the full line is the tooltip).
  const answer = answerNow ?? model.get("debug_status") ?? "";
  if (answer) parts.unshift(answer);
  // What the memory overlay's colours mean in bytes: torchlens' peak and baseline, while it is shown.
  const memory = model.get("_memory_line") ?? "";
  if (memory && memory !== answer) parts.push(memory);
  const highlighted = (model.get("highlighted") ?? []).length;
  if (highlighted) parts.push(`${highlighted} highlighted`);
  const comparison = kind.comparison(model);
  if (comparison) parts.push(comparison.split("; largest:")[0]);
  for (const warning of info.warnings ?? []) parts.push(`⚠ ${warning}`);
  return parts.join(" · ");
}
