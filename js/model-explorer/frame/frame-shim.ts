// Runs INSIDE the Model Explorer frame as its first, classic inline script, before the app's module
// scripts. It lets the unmodified app run from blob: URLs in a srcdoc document, answers the app's
// server API from the parent page, and keeps the app off the network and off the page's history.
// Its parts: the message guard (shim-guard.ts), the offline app (shim-offline.ts), the widget's
// layout (shim-layout.ts), the graph at the screen's resolution in software WebGL (shim-pixel-ratio.ts),
// an overlay switch and highlights in place (shim-recolour.ts, shim-runs-in-place.ts, shim-marks.ts),
// drawn without the app's move-into-place animation as the widget's selects are (shim-still.ts), the
// app's invisible hit boxes left undrawn (shim-hit-boxes.ts), whose
// node selections are the user's (shim-selection.ts) and the reports to the parent (shim-reports.ts).
import { keepFocusWithUser } from "../../frame/frame-manners";
import type { ShimConfig, ShimPost } from "../protocol";
import { guardMessages } from "./shim-guard";
import { answerLayoutCommands, closeInfoPanelsAtStart } from "./shim-layout";
import { answerFetch, keepHistoryInFrame, keepStorageInMemory, mapAssetUrls } from "./shim-offline";
import { answerMarks } from "./shim-marks";
import { drawNoHitBoxes } from "./shim-hit-boxes";
import { drawAtScreenPixelsInSoftware } from "./shim-pixel-ratio";
import { answerRecolour } from "./shim-recolour";
import { reportErrors, reportPaint, watchWebglContexts } from "./shim-reports";
import { reportWhoSelects } from "./shim-selection";
import { drawWidgetSelectsStill } from "./shim-still";

declare global {
  interface Window {
    __TLW_ME__: ShimConfig;
    modelExplorer?: Record<string, unknown>;
  }
}

/**
 * Installs the shim, in this order: everything up to the WebGL watch must be in place before the
 * app's first script runs (the message guard first: the app's listeners are wrapped as it adds them).
 */
function startShim(config: ShimConfig): void {
  keepFocusWithUser(); // before the app: it focuses its controls as it starts
  // Only to the parent page's origin (written into this document by the parent: this sandboxed frame's
  // own origin is opaque). A page with an opaque origin (a saved file opened from disk) cannot be
  // named: "*" there, and the source check alone.
  const parentOrigin = config.parentOrigin;
  const post: ShimPost = (message) => window.parent.postMessage(message, parentOrigin === "null" ? "*" : parentOrigin);
  const { trusted, realAdd } = guardMessages(parentOrigin);
  mapAssetUrls(config);
  answerFetch(config, post);
  keepStorageInMemory();
  keepHistoryInFrame(config);
  watchWebglContexts(post, realAdd);
  drawAtScreenPixelsInSoftware();
  drawNoHitBoxes();
  if (config.infoPanelClosed) closeInfoPanelsAtStart();
  answerLayoutCommands(post, trusted);
  answerRecolour(post, trusted);
  answerMarks(post, trusted);
  reportWhoSelects(post, trusted); // before the app: the parent hears "select heard" before any answer to it
  drawWidgetSelectsStill(trusted); // before the app too: still from the moment the app hears the select
  reportPaint(post);
  reportErrors(config, post);
}

startShim(window.__TLW_ME__);
