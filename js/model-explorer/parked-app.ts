// One Model Explorer app booted ahead of need, parked out of sight in the page, for the next explorer
// that can start before its graph lands (one pane, no node data) to take. That explorer's first draw
// then skips the app's boot: compiling and running its 2 MB of scripts, half a second to a second on
// two cores. (Starting each explorer's app as its cell runs instead was measured: the boot then
// competes with the kernel's export for the same cores, and no draw came sooner.)
//
// A parked app is made once no viewer frame has drawn for QUIET_MS, after an explorer has shown the app on
// this page, so it never competes with a draw. The browser moves it into the adopting view without
// reloading it (Element.moveBefore); where it cannot, there is no parked app. Until taken it holds no WebGL
// context (the app makes one for its graph); one nobody takes within PARKED_LIFETIME_MS is dropped,
// and its memory with it.
import BUILD_ID from "build:id";
import type { AssetBundle } from "../kernel/assets";
import { framesMove } from "../view/viewer-bridge";
import { isRecord, pageGlobal } from "../shared/page-globals";
import { followHostTheme } from "../view/theme";
import { type AdoptOptions, ModelExplorerFrame } from "./bridge";

const QUIET_MS = 1500;
const PARKED_LIFETIME_MS = 10 * 60 * 1000;
/**
 * Which parked apps this build may take: only those it parked itself. A page may run two builds' widgets
 * (a second kernel environment, a saved notebook's older bundle), and a parked frame is its build's whole
 * Model Explorer frame, the page's side (its methods: adopt(), mark(), recolour()) and the shim's (the
 * messages it understands and sends): an older one handed to newer code fails in ways no check of its
 * shape would catch. So the format is the build's id, a hash of every source (build.mjs), never bumped by
 * hand, and so never forgotten.
 */
const PARKED_FORMAT: string = BUILD_ID;

interface ParkedApp {
  format: string;
  key: string;
  frame: ModelExplorerFrame;
  holder: HTMLElement;
  stopTheme: () => void;
  expiry: number;
}

/** One parked app per page: it lives on globalThis (js/shared/page-globals.ts), as each widget may load its own copy of this module. */
interface ParkedSlot {
  parked: ParkedApp | null;
  quietTimer: number;
  /** Viewer frames drawing now, on this page (Netron's redraws in place included). */
  drawing: number;
  /** Model Explorer's app as the page has it (a parked app is made only once an explorer has shown it). */
  bundle: AssetBundle | null;
}

function isSlot(held: unknown): held is ParkedSlot {
  return isRecord(held) && "parked" in held && "quietTimer" in held && "drawing" in held && "bundle" in held;
}

function slot(): ParkedSlot {
  return pageGlobal("ParkedApp", () => ({ parked: null, quietTimer: 0, drawing: 0, bundle: null }), isSlot);
}

/**
 * A viewer frame starts drawing (either viewer): no parked app boots until every draw in flight on the page
 * has ended. Returns what ends this draw (once: a frame closed before it drew ends it too).
 */
export function drawStarted(): (bundle?: AssetBundle) => void {
  const page = slot();
  page.drawing += 1;
  window.clearTimeout(page.quietTimer);
  let ended = false;
  return (bundle) => {
    if (ended) return;
    ended = true;
    page.drawing = Math.max(0, page.drawing - 1);
    drawEnded(bundle);
  };
}

/**
 * A viewer frame is done drawing (`bundle`: Model Explorer's app, if it was an explorer): a parked app is
 * parked once no frame has drawn for QUIET_MS, if an explorer has shown the app on this page.
 */
export function drawEnded(bundle?: AssetBundle): void {
  const page = slot();
  if (bundle) page.bundle = bundle;
  const app = page.bundle;
  if (!app || !framesMove() || page.drawing > 0) return;
  window.clearTimeout(page.quietTimer);
  page.quietTimer = window.setTimeout(() => park(app), QUIET_MS);
}

function park(bundle: AssetBundle): void {
  const page = slot();
  if (page.parked?.format === PARKED_FORMAT && page.parked.key === bundle.key && page.parked.holder.isConnected) return;
  dropParkedApp();
  const holder = document.createElement("div");
  holder.className = "tlw-parked-app";
  holder.inert = true; // out of the tab order and the accessibility tree until adopted
  // A widget's size while the app boots (it fits itself to the view that takes it), unseen and never hit.
  holder.style.cssText = "position:fixed;left:0;top:0;width:800px;height:600px;opacity:0;pointer-events:none;z-index:-1;overflow:hidden";
  document.body.appendChild(holder);
  // The same light or dark as the widgets, which the app reads as it starts.
  const stopTheme = followHostTheme(holder);
  const frame = ModelExplorerFrame.parked(holder, bundle);
  const expiry = window.setTimeout(dropParkedApp, PARKED_LIFETIME_MS);
  page.parked = { format: PARKED_FORMAT, key: bundle.key, frame, holder, stopTheme, expiry };
}

function release(taken: ParkedApp): void {
  window.clearTimeout(taken.expiry);
  taken.stopTheme();
  taken.holder.remove();
}

function dropParkedApp(): void {
  const page = slot();
  const dropped = page.parked;
  if (!dropped) return;
  page.parked = null;
  dropped.frame.dispose();
  release(dropped);
}

/** The parked app for `bundle`, moved into `container` to show the view's graph; null if there is none. */
export function adoptParkedApp(bundle: AssetBundle, container: HTMLElement, options: AdoptOptions): ModelExplorerFrame | null {
  const page = slot();
  const taken = page.parked;
  if (taken?.format !== PARKED_FORMAT || taken.key !== bundle.key || !taken.holder.isConnected || !container.isConnected) {
    return null;
  }
  page.parked = null;
  try {
    taken.frame.adopt(container, options);
  } catch {
    // The browser refused the move (a container it cannot move a frame into): a new frame it is.
    taken.frame.dispose();
    release(taken);
    return null;
  }
  release(taken);
  return taken.frame;
}
