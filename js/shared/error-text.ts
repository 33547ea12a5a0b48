// What an error says, for a status line, a notice or a frame's message (anything may be thrown).
import type { Viewer } from "../kernel/protocol";

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error whose remedy is to show the trace in another viewer (the error box offers a button for it). */
export interface OtherViewerRemedy {
  switchTo: Viewer;
}

/** An error whose remedy is `viewer`. */
export function remedyIsViewer(message: string, viewer: Viewer): Error & OtherViewerRemedy {
  return Object.assign(new Error(message), { switchTo: viewer });
}

/**
 * The viewer an error names as its remedy, if any. Read from the error's field, not its class: a
 * parked frame (js/model-explorer/parked-app.ts) may come from another widget's copy of this module.
 */
export function viewerRemedy(error: unknown): Viewer | null {
  const switchTo = error instanceof Error ? (error as Partial<OtherViewerRemedy>).switchTo : undefined;
  return switchTo === "netron" || switchTo === "model-explorer" ? switchTo : null;
}
