// Written by `python -m torchlens_widgets._trait_schema` from the widgets' synced traits: do not edit.
// Each trait as the kernel syncs it; one that only some widgets have is optional, with their names.

export interface WidgetTraits {
  _asset_key: string;
  _colour_rev: number;
  _debug_questions: string[];
  _graph_info: { label?: string; graphs?: Record<string, number>; warnings?: string[] };
  _graph_rev: number;
  _highlight_nodes: string[];
  _highlight_roles: Record<string, string>;
  /** Explorer, Compare only. */
  _inspect_rev?: number;
  /** Diff, Compare only. */
  _kind?: string;
  /** Explorer, Compare only. */
  _memory_line?: string;
  /** Explorer, Compare only. */
  _overlay_choices?: string[];
  _picture: string;
  /** Explorer, Compare only. */
  baseline_summary?: { line?: string };
  debug_status: string;
  /** Explorer, Compare only. */
  depth?: number;
  draws: number;
  error: string;
  /** Explorer, Compare only. */
  granularity?: string;
  height: number;
  highlighted: string[];
  inspector_collapsed: boolean;
  inspector_width: number;
  maximized: boolean;
  notice: string;
  /** Explorer, Compare only. */
  overlay?: string;
  /** Explorer, Compare only. */
  overlay_summary?: string;
  /** Compare only. */
  reference?: string;
  /** Compare only. */
  run?: string;
  /** Compare only. */
  runs?: string[];
  /** Explorer, Compare only. */
  selected_label?: string;
  /** Diff only. */
  selected_labels?: [string, string];
  selected_node: string;
  /** Explorer, Compare only. */
  show_buffers?: string;
  status: string;
  /** Diff only. */
  summary?: { line?: string; top?: { node_id: string; label: string; value: number | null; text?: string }[] };
  /** Explorer, Compare only. */
  timeline?: string | null;
  viewer: string;
}

/** Every trait name, as a value (the protocol's contract test compares it with the kernel's). */
export const WIDGET_TRAIT_NAMES = [
  "_asset_key",
  "_colour_rev",
  "_debug_questions",
  "_graph_info",
  "_graph_rev",
  "_highlight_nodes",
  "_highlight_roles",
  "_inspect_rev",
  "_kind",
  "_memory_line",
  "_overlay_choices",
  "_picture",
  "baseline_summary",
  "debug_status",
  "depth",
  "draws",
  "error",
  "granularity",
  "height",
  "highlighted",
  "inspector_collapsed",
  "inspector_width",
  "maximized",
  "notice",
  "overlay",
  "overlay_summary",
  "reference",
  "run",
  "runs",
  "selected_label",
  "selected_labels",
  "selected_node",
  "show_buffers",
  "status",
  "summary",
  "timeline",
  "viewer",
] as const satisfies readonly (keyof WidgetTraits)[];
