// The widget's traits as the kernel syncs them (torchlens_widgets: the Explorer and Diff widgets).
// State travels in traits; bytes travel in requests (js/protocol.ts).

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
  _asset_key: string;
  _graph_rev: number;
  _graph_info: { label?: string; graphs?: Record<string, number>; warnings?: string[] };
  _overlay_choices: string[];
  baseline_summary: { line?: string };
  /** "diff" for tlw.diff(): two panes, no overlay control, a summary and the largest deltas. */
  _kind?: string;
  summary: { line?: string; top?: { node_id: string; label: string; value: number }[] };
  selected_labels: [string, string];
  /** The inspector's width in px beside the graph, folded to a strip, the widget maximized (js/room.ts). */
  inspector_width: number;
  inspector_collapsed: boolean;
  maximized: boolean;
}
