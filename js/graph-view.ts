// A widget's view, explore or diff: chrome + a viewer frame + inspectors, wired to the kernel model.
// What differs between the two views is a ViewKind (js/explore-view.ts, js/diff-view.ts).
import type { AnyModel } from "@anywidget/types";
import { assetTransfers } from "./assets";
import { KernelChannel } from "./channel";
import { isDisplayed, pausableDeadline, RENDER_BUDGET_MS } from "./deadline";
import { fetchDrawInputs } from "./draw-inputs";
import { contextsOf, trackVisibility } from "./frame-budget";
import { bufferEncodingFor } from "./host-transport";
import type { InspectorPanel } from "./inspector";
import { giveFocusBack } from "./host-focus";
import { kernelOf, lossMessage, watchKernel, type KernelLoss } from "./kernel-watch";
import { debugQuestions, INSPECTOR_WIDTH, parseDebugReply, parseInspectReply, type DebugParams, type Viewer } from "./protocol";
import { Room } from "./room";
import { redrawGuard } from "./redraw-guard";
import { pictureKeeper, restoredWithoutKernel } from "./saved-picture";
import { followHostTheme } from "./theme";
import type { WidgetTraits } from "./traits";
import { createViewer, VIEWER_TITLES, type ViewerFrame } from "./viewers";
import { WidgetView } from "./view";
import { viewBudget } from "./view-budget";

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function nodeCount(info: WidgetTraits["_graph_info"]): number {
  const sizes = Object.values(info.graphs ?? {});
  return sizes.length ? sizes[0] : 0;
}

/** The error shown when a displayed viewer never drew (with what the viewer reported while starting). */
function drawTimeout(frame: ViewerFrame): Error {
  const reasons = frame.startupErrors.length ? `\nThe viewer reported: ${frame.startupErrors.join("; ")}` : "";
  const title = VIEWER_TITLES[frame.viewer];
  // Without a reported error the likeliest cause is no WebGL; with one, the error says more.
  const hint = frame.viewer === "model-explorer" && !frame.startupErrors.length ? " (it needs WebGL in this browser)" : "";
  return new Error(`${title} did not draw the graph within ${RENDER_BUDGET_MS / 1000} s on screen${hint}.${reasons}`);
}

/** The explore view or the diff view of a widget: what differs between them (js/explore-view.ts, js/diff-view.ts). */
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
   * ahead (js/model-explorer/spare.ts) can show it: not where it names the panes' graph ids (two
   * panes) or a node-data file (an overlay), which come with the graph.
   */
  takesParkedApp(model: TraitsModel): boolean;
  /** The inspector is a column beside the graph whose width a divider sets (else a row under it). */
  sideResizable: boolean;
  /** The inspector panels that offer the selection's lineage (upstream / downstream buttons). */
  lineagePanels: number[];
}

export type TraitsModel = AnyModel<WidgetTraits>;

/** Draws a widget's view in `el` and keeps it in step with the model; returns what closes it. */
export function mountGraphView(model: TraitsModel, el: HTMLElement, kind: ViewKind): () => void {
  const view = new WidgetView(el, model.get("height"));
  const stopTheme = followHostTheme(view.root); // the viewer frames inherit the root's color-scheme
  // Requests queue behind running cells: a busy kernel is waited for, not reported as gone.
  const kernelBusy = () => kernelOf(model.widget_manager)?.status === "busy";
  const channel = new KernelChannel(model, kernelBusy, bufferEncodingFor(model.widget_manager), {
    onEncoding: (encoding) => {
      el.dataset.bufferEncoding = encoding;
    },
    // A draw waiting for a reply that does not come says so, with the remedy (see channel.ts).
    onSilence: (text) => {
      if (model.get("status") === "loading") view.setStatus(text, "loading");
    },
  });
  el.dataset.bufferEncoding = channel.encoding;
  const inspectors = kind.attachInspectors(view, model);
  // The room: the inspector's width and fold, and maximize; the model remembers them (save_html too).
  const setTrait = (name: "inspector_width" | "inspector_collapsed" | "maximized", value: number | boolean) => {
    model.set(name, value as never);
    model.save_changes();
  };
  const room = new Room(view.root, view.main, view.side as HTMLElement, kind.sideResizable, {
    onWidth: (width) => setTrait("inspector_width", width),
    onCollapsed: (collapsed) => setTrait("inspector_collapsed", collapsed),
    onMaximized: (maximized) => setTrait("maximized", maximized),
  });
  let fitPending = false; // the viewer fits once the frame has its new size (maximize, restore)
  const fitObserver = new ResizeObserver(() => {
    if (!fitPending) return;
    fitPending = false;
    // Two frames later: the viewer's own resize handling (a frame after the resize) has run by then.
    requestAnimationFrame(() => requestAnimationFrame(() => frame?.fit()));
  });
  fitObserver.observe(view.body);
  const onInspectorWidth = () => room.setWidth(model.get("inspector_width") ?? INSPECTOR_WIDTH);
  const onInspectorCollapsed = () => {
    room.setCollapsed(Boolean(model.get("inspector_collapsed")));
    view.setHeight(model.get("height")); // a diff's folded inspectors leave a strip
  };
  const onMaximized = () => {
    const maximized = Boolean(model.get("maximized"));
    fitPending = true;
    room.setMaximized(maximized);
    view.setMaximized(maximized);
  };
  onInspectorWidth();
  onInspectorCollapsed();
  onMaximized();
  view.onActions({
    saveImage: (format) => {
      const current = frame;
      const known = current?.imageFormats.find((offered) => offered === format);
      if (!current || !known) return; // the buttons follow the frame; a click may race a redraw
      view.setNotice("");
      current.saveImage(known).catch((error) => view.setNotice(`The image was not saved: ${describe(error)}`));
    },
    toggleMaximized: () => setTrait("maximized", !model.get("maximized")),
  });
  let inspectGeneration = 0;
  let frame: ViewerFrame | null = null;
  let generation = 0; // bumped by every show(); a stale show() stops at its next await
  let disposed = false;
  let lost: KernelLoss | null = null; // the kernel restarted or died: this view is read-only
  let paused = false; // off-screen, its frame freed for the page's WebGL budget (frame-budget.ts)

  const report = (status: "loading" | "ready" | "error" | "paused", error = "", drew = false) => {
    if (lost) return; // nobody is listening any more
    model.set("status", status);
    model.set("error", error);
    if (drew) model.set("draws", (model.get("draws") ?? 0) + 1);
    model.save_changes();
  };
  // The picture a saved notebook shows until the kernel runs the cell again (js/saved-picture.ts).
  const picture = pictureKeeper({
    widget: model,
    take: () => {
      const current = frame;
      if (!current || disposed || lost || paused || !isDisplayed(view.root)) return null;
      return { png: current.picture(), current: () => current === frame && !disposed && !lost };
    },
    kept: () => String(model.get("_picture") ?? ""),
    keep: (url) => {
      model.set("_picture", url);
      model.save_changes();
    },
  });
  const statusText = (answerNow?: string) => {
    const info = model.get("_graph_info");
    const label = kind.selectedText(model);
    const parts = [`${nodeCount(info)} nodes`, label ? `selected ${label}` : "click a node to select it"];
    // The last debug answer leads: it is what the user asked for (the full line is the tooltip).
    const answer = answerNow ?? model.get("debug_status") ?? "";
    if (answer) parts.unshift(answer);
    const highlighted = (model.get("highlighted") ?? []).length;
    if (highlighted) parts.push(`${highlighted} highlighted`);
    const comparison = kind.comparison(model);
    if (comparison) parts.push(comparison.split("; largest:")[0]);
    for (const warning of info.warnings ?? []) parts.push(`⚠ ${warning}`);
    return parts.join(" · ");
  };
  const onSelect = (nodeId: string) => {
    if (lost) return; // the viewer still highlights the node; there is no kernel to tell
    model.set("selected_node", nodeId);
    model.save_changes();
  };

  /** Whether the browser paints this view's frame now: laid out, and in the viewport. */
  const onScreen = () => isDisplayed(view.root) && budget.visible;

  /** Draws the current graph; a later show() or a pause makes this one stop at its next await. */
  async function show(): Promise<void> {
    const mine = ++generation;
    try {
      await draw(mine);
    } catch (error) {
      if (mine === generation) fail(error); // a superseded draw's failure is nobody's business
    }
  }

  async function draw(mine: number): Promise<void> {
    const stale = () => disposed || mine !== generation;
    view.clearError();
    report("loading");
    // Asks only once the kernel has said which assets and graph to show (VS Code can render first).
    const { viewer, bundle, graph } = await fetchDrawInputs(model, channel, {
      onWaiting: () => view.setStatus("Waiting for the kernel…", "loading"),
      onLoading: (name) => {
        const title = VIEWER_TITLES[name];
        view.setTitle(title);
        view.setStatus(`Loading ${title}…`, "loading");
      },
      counting: () => isDisplayed(view.root) && !kernelBusy(),
      budgetMs: RENDER_BUDGET_MS,
    });
    if (stale()) return;
    let graphLanded = performance.now(); // when the graph was in the page (renderMs counts from there)
    let landed = false;
    // A frame draws only on screen (see below): until it has, the status line says which wait it is.
    const sayWhatDraws = () => {
      if (stale() || !landed) return;
      const nodes = nodeCount(model.get("_graph_info"));
      const onScreen = isDisplayed(view.root) && budget.visible;
      view.setStatus(
        onScreen ? `Laying out ${nodes} nodes…` : `Waiting to be on screen: ${nodes} nodes are drawn when this view is scrolled to.`,
        "loading",
      );
    };
    const layingOut = () => {
      graphLanded = performance.now();
      landed = true;
      sayWhatDraws();
    };
    let rendered: Promise<number> | null = null;
    if (frame && frame.viewer === viewer) {
      const next = await graph;
      if (stale()) return;
      layingOut();
      rendered = frame.replace(next);
    } else {
      void graph.then(layingOut, () => undefined); // a new frame boots meanwhile
    }
    if (!rendered) {
      frame?.dispose();
      frame = null;
      if (viewer === "model-explorer" && !(await readyToBoot(graph))) return;
      const created = createViewer(viewer, view.body, bundle, graph, kind.takesParkedApp(model), {
        onSelect,
        onContextLost,
        onNotice: (text) => view.setNotice(text),
        onEscape: () => {
          giveFocusBack(view.root); // Escape leaves the viewer: the notebook's keys work again
          if (model.get("maximized")) setTrait("maximized", false);
        },
      });
      frame = created;
      rendered = created.rendered;
      // No graph for a frame that booted for it: nothing half-drawn stays (the error box says why).
      graph.catch(() => {
        if (frame !== created) return;
        created.dispose();
        frame = null;
        view.setImageFormats([]);
      });
      view.setImageFormats(created.imageFormats);
      view.showPlaceholder("");
      if (created.viewer === "model-explorer")
        slot.hold(); // may pause a long-hidden explorer, or this one (then the draw is stale)
      else slot.free(); // Netron draws SVG: no WebGL context
      if (stale()) return;
    }
    const current = frame!;
    // Only time in the viewport counts. Both viewers' frames are sandboxed (cross-origin), and Chromium
    // runs no animation frame in such a frame while it is off screen: Netron lays out after three of
    // them, Model Explorer renders in them. A frame below the fold draws once it is scrolled to.
    const sayingWhatDraws = window.setInterval(sayWhatDraws, 500);
    const frameMs = await pausableDeadline(rendered, onScreen, () => drawTimeout(current), RENDER_BUDGET_MS).finally(() =>
      window.clearInterval(sayingWhatDraws),
    );
    if (stale()) return;
    const selected = model.get("selected_node");
    if (selected) current.select(selected);
    current.highlight(model.get("_highlight_nodes") ?? []);
    view.setStatus(statusText(), "ready");
    el.dataset.renderMs = String(Math.round(performance.now() - graphLanded));
    el.dataset.frameMs = String(Math.round(frameMs));
    el.dataset.viewer = current.viewer; // which viewer drew last (a switch's redraw is told apart)
    el.dataset.renderedAt = String(Date.now());
    el.dataset.draws = String(Number(el.dataset.draws ?? 0) + 1); // this view's own count
    el.dataset.assetRequests = String(assetTransfers().requests);
    report("ready", "", true);
    picture.soon();
  }

  /** Asks the kernel about the current selection and shows it; stale answers are dropped. */
  async function inspect(): Promise<void> {
    const mine = ++inspectGeneration;
    const labels = kind.inspectLabels(model);
    await Promise.all(
      inspectors.map(async (panel, side) => {
        const label = labels[side];
        if (!label) {
          const message = labels.some(Boolean) ? kind.missingLabel(side, labels) : null;
          if (message) panel.showMessage(message);
          else panel.clear();
          return;
        }
        panel.showMessage(`Inspecting ${label}…`);
        try {
          const { result: raw, buffers } = await channel.request("inspect", { side });
          const result = parseInspectReply(raw);
          if (disposed || mine !== inspectGeneration || result.label !== label) return;
          if (result.kind === "none") panel.clear();
          else panel.update(result, buffers);
        } catch (error) {
          if (!disposed && mine === inspectGeneration) panel.showMessage(`Could not inspect ${label}: ${describe(error)}`);
        }
      }),
    );
  }
  /**
   * Asks the kernel a debug question. The kernel does what the Python call does (selects, centres,
   * highlights, sets `debug_status`); the reply's status is shown at once, the traits follow.
   */
  async function ask(params: DebugParams): Promise<void> {
    if (lost) return;
    view.setNotice("");
    try {
      const { result } = await channel.request("debug", params);
      const reply = parseDebugReply(result);
      if (disposed || lost) return;
      if (model.get("status") === "ready") view.setStatus(statusText(reply.status), "ready");
    } catch (error) {
      // A refusal (nothing selected, no baseline) is not a broken widget: it is said like a refused overlay.
      if (!disposed && !lost) view.setNotice(describe(error));
    }
  }
  // A live kernel always syncs `_debug_questions` (maybe empty); a saved page's recording has no
  // kernel to ask, and no such trait: its inspector offers no lineage.
  if (Array.isArray(model.get("_debug_questions")))
    for (const side of kind.lineagePanels) inspectors[side]?.setLineageHandler((direction) => void ask({ question: "lineage", direction }));
  const showQuestions = () => view.setDebugQuestions(debugQuestions(model.get("_debug_questions")), (question) => void ask({ question }));
  showQuestions();
  const showTopDeltas = () => view.setChips("Largest deltas:", kind.chips(model, onSelect));

  const fail = (error: unknown) => {
    if (disposed || lost) return; // a request the lost kernel never answered: already explained
    const text = describe(error);
    view.showError(text);
    report("error", text);
  };
  // The page's WebGL budget: this view's entry, and pausing/resuming its frame as it scrolls.
  const slot = viewBudget(contextsOf(kind.contexts), { pause: () => pause(), retire: () => retire() });
  const budget = slot.entry;
  function pause(
    text = "Paused off-screen: the browser allows only a few Model Explorer views live per page. It redraws when scrolled into view.",
    redraw?: () => void,
  ): void {
    if (!frame || disposed || lost) return;
    generation += 1; // an in-flight draw stops at its next await
    frame.dispose();
    frame = null;
    view.setImageFormats([]);
    paused = true;
    view.showPlaceholder(text, redraw && { label: "Redraw", onClick: redraw });
    view.setStatus(text, "paused");
    report("paused");
  }
  /** A read-only view gives up its frame (the budget needs it, or its context was lost): its picture instead. */
  let retired = false;
  function retire(): void {
    if (disposed || !lost || lost === "restored" || retired) return;
    retired = true;
    generation += 1;
    frame?.dispose();
    frame = null;
    paused = false; // nothing redraws it: the picture stays
    view.setImageFormats([]);
    const saved = String(model.get("_picture") ?? "");
    const text = lossMessage(lost);
    view.showSavedPicture(saved, saved ? `A picture of its last draw. ${text}` : text);
  }
  const mayRedrawNow = redrawGuard();
  const redrawNow = () => {
    if (!paused || lost || disposed) return;
    paused = false;
    void show();
  };
  // The browser dropped a WebGL context of the frame (its per-page limit, a GPU reset): the canvas is
  // blank for good, so the frame goes, never "ready" over a blank graph. On screen it is redrawn at
  // once, a few times a minute at most (js/redraw-guard.ts); else the view pauses like an off-screen
  // one, redraws when it is on screen again, and offers a Redraw button meanwhile.
  function onContextLost(): void {
    slot.free();
    if (lost) {
      retire();
      return;
    }
    const shown = onScreen() && document.visibilityState === "visible";
    if (shown && mayRedrawNow()) {
      pause("Redrawing: the browser dropped this view's WebGL context (too many on the page, or a GPU reset).");
      redrawNow();
      return;
    }
    pause(
      shown
        ? "Paused: the browser keeps dropping this view's WebGL context (too many on the page, or a GPU reset)."
        : "Paused: the browser dropped this view's WebGL context (too many on the page, or a GPU reset). It redraws when it is on screen again.",
      redrawNow,
    );
  }
  let visibilityReported!: () => void;
  const visibilityKnown = new Promise<void>((resolve) => {
    visibilityReported = resolve;
  });
  const stopTracking = trackVisibility(view.root, budget, redrawNow, visibilityReported);
  /**
   * Waits until a new Model Explorer frame may start; false if the draw went stale meanwhile. On
   * screen it starts at once and boots during the kernel's export. Off screen it waits for the graph
   * (it cannot draw there anyway): a notebook of many explorers does not boot them all at once, and
   * the WebGL budget admits frames knowing which views are on screen.
   */
  async function readyToBoot(graph: Promise<unknown>): Promise<boolean> {
    const mine = generation;
    const landed = graph.then(
      () => undefined,
      () => undefined,
    );
    await Promise.race([visibilityKnown, landed]);
    // The visibility of every view as of now: a scroll's intersection reports arrive a rendering step
    // after it, and the budget chooses which explorers to pause by them.
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    if (!budget.visible) await landed;
    return !disposed && mine === generation;
  }
  const onSelectedNode = () => {
    frame?.select(model.get("selected_node"));
    picture.soon();
  };
  showTopDeltas();
  const onSelectedLabel = () => {
    refreshStatus();
    void inspect();
  };
  const refreshStatus = () => {
    if (model.get("status") === "ready") view.setStatus(statusText(), "ready");
  };
  const onHighlight = () => {
    frame?.highlight(model.get("_highlight_nodes") ?? []);
    refreshStatus();
  };
  const onHeight = () => view.setHeight(model.get("height"));
  const onOverlay = () => view.setOverlay(model.get("overlay") ?? "", model.get("overlay_summary") ?? "");
  const onNotice = () => view.setNotice(model.get("notice") ?? "");
  // The choices grow when the kernel adds a custom overlay (w.add_overlay).
  const onOverlayChoices = () => {
    view.setOverlayChoices(model.get("_overlay_choices") ?? [], (overlay) => {
      model.set("overlay", overlay); // the kernel answers with a new graph, or a notice and the old value
      model.save_changes();
    });
    onOverlay();
  };
  onOverlayChoices();
  onNotice();
  const onGraph = () => {
    paused = false; // a new graph is drawn now, on or off screen (the budget pauses it again if needed)
    void show();
  };
  // Every model event this view listens to, so that closing the view removes exactly these.
  const listeners: [string, () => void][] = [
    ["change:selected_node", onSelectedNode],
    ["change:selected_label", onSelectedLabel],
    ["change:selected_labels", onSelectedLabel],
    ["change:baseline_summary", onSelectedLabel],
    ["change:height", onHeight],
    ["change:_graph_rev", onGraph],
    ["change:overlay", onOverlay],
    ["change:overlay_summary", onOverlay],
    ["change:notice", onNotice],
    ["change:inspector_width", onInspectorWidth],
    ["change:inspector_collapsed", onInspectorCollapsed],
    ["change:maximized", onMaximized],
    ["change:_overlay_choices", onOverlayChoices],
    ["change:_debug_questions", showQuestions],
    ["change:debug_status", refreshStatus],
    ["change:highlighted", refreshStatus],
    ["change:_highlight_nodes", onHighlight],
  ];
  for (const [event, handler] of listeners) model.on(event, handler);
  const onKernelLost = (why: KernelLoss) => {
    if (disposed) return;
    lost = why;
    // A read-only view keeps its frame, still counted in the page's WebGL budget (js/view-budget.ts).
    slot.readOnly();
    const text = lossMessage(why);
    channel.close(text);
    view.setDisconnected(text); // the graph and the inspector keep what they show
    if (paused) retire(); // nothing can redraw it now: its picture
  };
  const onConnection = (connected: boolean) => {
    if (disposed || lost) return;
    if (!connected) view.setStatus("Connection to the kernel lost; reconnecting…", "loading");
    else if (model.get("status") === "ready") view.setStatus(statusText(), "ready");
  };
  const stopWatching = watchKernel(model.widget_manager, onKernelLost, onConnection);
  void restoredWithoutKernel(model).then((restored) => {
    if (disposed) return;
    if (restored) {
      showSavedPicture();
      return;
    }
    void show();
    void inspect(); // a re-rendered view of a widget that already has a selection
  });

  /** Restored from a saved notebook, no kernel behind it: its picture, and how to get the live view back. */
  function showSavedPicture(): void {
    lost = "restored"; // nothing may ask the kernel or report to it
    slot.free();
    const saved = String(model.get("_picture") ?? "");
    view.setTitle(VIEWER_TITLES[model.get("viewer") as Viewer] ?? "");
    view.showSavedPicture(
      saved,
      saved ? "Run this cell for the live view: this is a picture of its last draw (no kernel runs it yet)." : lossMessage(lost),
    );
    for (const panel of inspectors) panel.showMessage("The inspector asks the kernel: run this cell to use it.");
  }

  return () => {
    disposed = true;
    picture.dispose();
    stopWatching();
    stopTheme();
    stopTracking();
    slot.free();
    for (const panel of inspectors) panel.dispose();
    fitObserver.disconnect();
    room.dispose();
    for (const [event, handler] of listeners) model.off(event, handler);
    channel.dispose();
    frame?.dispose();
  };
}
