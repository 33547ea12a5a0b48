// The widget's traits as the kernel syncs them (torchlens_widgets: the Explorer and Diff widgets).
// State travels in traits; bytes travel in requests (js/kernel/protocol.ts).

import type { AnyModel } from "@anywidget/types";

export interface WidgetTraits {
  viewer: string;
  granularity: string;
  overlay: string;
  overlay_summary: string;
  notice: string;
  height: number;
  selected_node: string;
  selected_label: string;
  status: string;
  error: string;
  /** How many graphs the views of this widget have painted (a fresh signal for whoever waits on a draw). */
  draws: number;
  _asset_key: string;
  _graph_rev: number;
  /** Bumped when only the graph's colours changed (an overlay, a baseline's facts): repainted in place. */
  _colour_rev: number;
  _graph_info: { label?: string; graphs?: Record<string, number>; warnings?: string[] };
  _overlay_choices: string[];
  baseline_summary: { line?: string };
  /** Bumped when the inspector's facts of the selection changed while it did not (a baseline set, changed, cleared). */
  _inspect_rev?: number;
  /** "diff" for tlw.diff(): two panes, no overlay control, a summary and the largest deltas; "compare"
   * for tlw.compare(): the explore view with a run scrubber. */
  _kind?: string;
  summary: { line?: string; top?: TopDelta[] };
  selected_labels: [string, string];
  /** The inspector's width in px beside the graph, folded to a strip, the widget maximized (js/inspector/inspector-layout.ts). */
  inspector_width: number;
  inspector_collapsed: boolean;
  maximized: boolean;
  /** torchlens labels of the highlighted nodes (w.highlight, w.lineage); written by the kernel. */
  highlighted?: string[];
  /** The same nodes as node ids of the current viewer and granularity (what a frame marks). */
  _highlight_nodes?: string[];
  /** Node id -> role of the highlighted nodes an answer tells apart (explain_nonfinite); {} otherwise. */
  _highlight_roles?: Record<string, string>;
  /** The debug questions the toolbar offers for this capture ("first_divergence", "first_nonfinite", "explain_nonfinite"). */
  _debug_questions?: string[];
  /** What the last debug answer found (first divergence, first non-finite, lineage, a crash). */
  debug_status?: string;
  /** torchlens' memory summary in one line while the memory overlay is shown ("" otherwise). */
  _memory_line?: string;
  /** The strip under the graph: "memory" (torchlens' live bytes over execution order) or null (hidden). */
  timeline?: string | null;
  /** Netron: module grouping depth and when buffers are drawn (kernel-side options of the export). */
  depth?: number;
  show_buffers?: string;
  /** A PNG data URL of the graph as a view last drew it (js/view/saved-picture.ts); "" until then. */
  _picture?: string;
  /** A comparison (tlw.compare, `_kind` "compare"): its runs' names in order, the run shown (the run
   * scrubber sets it), the reference run. */
  runs?: string[];
  run?: string;
  reference?: string;
}

/** One of a diff's largest deltas. A NaN or Inf delta has value null and says which in text ("NaN", "inf"). */
export interface TopDelta {
  node_id: string;
  label: string;
  value: number | null;
  text?: string;
}

/**
 * Every trait name above, as a value: the protocol's contract test compares it with the traits the
 * kernel's widgets sync (tests/fixtures/protocol/constants.json). The type below fails to compile if
 * a name of WidgetTraits is missing here.
 */
export const WIDGET_TRAIT_NAMES = [
  "viewer",
  "granularity",
  "overlay",
  "overlay_summary",
  "notice",
  "height",
  "selected_node",
  "selected_label",
  "status",
  "error",
  "draws",
  "_asset_key",
  "_graph_rev",
  "_colour_rev",
  "_graph_info",
  "_overlay_choices",
  "baseline_summary",
  "_inspect_rev",
  "_kind",
  "summary",
  "selected_labels",
  "inspector_width",
  "inspector_collapsed",
  "maximized",
  "highlighted",
  "_highlight_nodes",
  "_highlight_roles",
  "_debug_questions",
  "debug_status",
  "_memory_line",
  "timeline",
  "depth",
  "show_buffers",
  "_picture",
  "runs",
  "run",
  "reference",
] as const satisfies readonly (keyof WidgetTraits)[];

type UnlistedTrait = Exclude<keyof WidgetTraits, (typeof WIDGET_TRAIT_NAMES)[number]>;
export const EVERY_TRAIT_LISTED: [UnlistedTrait] extends [never] ? true : UnlistedTrait = true;

/** The widget's model as a view holds it. */
export type TraitsModel = AnyModel<WidgetTraits>;

/** A model event a view listens to: a trait's change (a misspelt trait does not compile), or a message. */
export type TraitEvent = `change:${keyof WidgetTraits}` | "msg:custom";

/** Listens to each model event with its handler; returns what removes exactly these. */
export function listen(model: TraitsModel, handlers: [TraitEvent, () => void][]): () => void {
  for (const [event, handler] of handlers) model.on(event, handler);
  return () => {
    for (const [event, handler] of handlers) model.off(event, handler);
  };
}
