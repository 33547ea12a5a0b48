// What differs between the explore view and the diff view of a widget (js/view/explore-view.ts,
// js/view/diff-view.ts); js/view/graph-view.ts draws either through this.
import type { InspectorPanel } from "../inspector/inspector";
import type { TraitsModel } from "./traits";
import type { WidgetView } from "./view";

export interface ViewKind {
  /** Creates this view's inspector panels and puts them beside (or under) the graph. */
  attachInspectors(view: WidgetView, model: TraitsModel): InspectorPanel[];
  /** The selection, as the status line says it. */
  selectedText(model: TraitsModel): string;
  /** The comparison the status line adds (a baseline's, a diff's summary), if any. */
  comparison(model: TraitsModel): string | undefined;
  /** The torchlens label each inspector panel shows ("" for none). */
  inspectLabels(model: TraitsModel): string[];
  /** What panel `side` says when it has no label although `labels` has some (null: it is cleared). */
  missingLabel(side: number, labels: string[]): string | null;
  /** The clickable entries under the toolbar (a diff's largest deltas). */
  chips(model: TraitsModel, select: (nodeId: string) => void): { text: string; onClick: () => void }[];
  /** WebGL contexts one Model Explorer frame of this view takes (panes side by side). */
  contexts: number;
  /**
   * Whether Model Explorer's start query can be written before the graph lands, so that an app parked
   * ahead (js/model-explorer/parked-app.ts) can show it: not where it names the panes' graph ids (two
   * panes) or a node-data file (an overlay), which come with the graph.
   */
  takesParkedApp(model: TraitsModel): boolean;
  /** The inspector is a column beside the graph whose width a divider sets (else a row under it). */
  sideResizable: boolean;
  /** The inspector panels that offer the selection's lineage (upstream / downstream buttons). */
  lineagePanels: number[];
  /** Whether a view may set the widget's viewer (an error whose remedy is Netron offers the switch). */
  switchesViewer: boolean;
}
