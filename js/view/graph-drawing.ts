// One view's viewer frame through its life: the draw of each graph revision (asked, booted, drawn on
// screen), pausing and resuming it for the page's WebGL budget, a lost WebGL context, giving the
// frame up for its saved picture once the view is read-only, and keeping that picture.
import { assetTransfers } from "../kernel/assets";
import type { KernelChannel, Response as KernelReply } from "../kernel/channel";
import { isDisplayed, pausableDeadline, RENDER_BUDGET_MS } from "../shared/deadline";
import { fetchDrawInputs } from "./draw-inputs";
import { contextsOf, trackVisibility } from "./webgl-budget";
import { kernelBusy, lossMessage } from "../kernel/kernel-watch";
import { coloursFitFacts, highlightRoles, parseColoursReply, type Viewer } from "../kernel/protocol";
import { redrawGuard } from "./redraw-guard";
import { pictureKeeper } from "./saved-picture";
import { nodeCount } from "./status-line";
import type { TraitsModel } from "./traits";
import { type Colours, createViewer, VIEWER_TITLES, type ViewerFrame } from "./viewers";
import type { WidgetView } from "./view";
import { viewBudget } from "./view-budget";
import type { ViewKind } from "./view-kind";
import { errorText } from "../shared/error-text";
import type { ViewLife } from "./view-life";

/** The error shown when a displayed viewer never drew (with what the viewer reported while starting). */
function drawTimeout(frame: ViewerFrame): Error {
  const reasons = frame.startupErrors.length ? `\nThe viewer reported: ${frame.startupErrors.join("; ")}` : "";
  const title = VIEWER_TITLES[frame.viewer];
  // Without a reported error the likeliest cause is no WebGL; with one, the error says more.
  const hint = frame.viewer === "model-explorer" && !frame.startupErrors.length ? " (it needs WebGL in this browser)" : "";
  return new Error(`${title} did not draw the graph within ${RENDER_BUDGET_MS / 1000} s on screen${hint}.${reasons}`);
}

/** The colours `ahead` holds for `frame`'s viewer; undefined for none, or another viewer's (a switch raced it). */
function aheadFor(frame: ViewerFrame, ahead: KernelReply<unknown> | undefined): Colours | undefined {
  if (!ahead) return undefined;
  try {
    return { reply: parseColoursReply(frame.viewer, ahead.result, ahead.buffers.length), buffers: ahead.buffers };
  } catch {
    return undefined;
  }
}

/** How long afterRecolour() holds work back at most, for a recolour that waits for its frame to be on screen. */
const AFTER_RECOLOUR_MAX_MS = 1_000;

const PAUSED_OFF_SCREEN =
  "Paused off-screen: the browser allows only a few Model Explorer views live per page. It redraws when scrolled into view.";

export interface DrawingHooks {
  /** A node was clicked in the frame. */
  onSelect(nodeId: string): void;
  /** Escape in the frame: the focus goes back to the notebook, a maximized widget is restored. */
  onEscape(): void;
  /** The status line of a drawn graph. */
  statusText(): string;
}

export class GraphDrawing {
  private frame: ViewerFrame | null = null;
  private drawnFrame: ViewerFrame | null = null; // the frame once its draw finished (only it is recoloured)
  private recolouring = false; // a colours request or repaint in flight: the next waits for it
  private recoloured: Promise<void> = Promise.resolve(); // settles when no recolour is in flight
  private generation = 0; // bumped by every show(); a stale show() stops at its next await
  // Ends the current draw's waits (its deadline and status timers) when it is superseded or the view
  // closes: a frame that never paints must not keep them, and the graph they hold, alive.
  private drawAbort = new AbortController();
  private paused = false; // off-screen, its frame freed for the page's WebGL budget (webgl-budget.ts)
  private retired = false;
  private readonly slot;
  private readonly picture;
  private readonly mayRedrawNow = redrawGuard();
  private readonly visibilityKnown: Promise<void>;
  private readonly stopTracking: () => void;

  constructor(
    private readonly el: HTMLElement,
    private readonly model: TraitsModel,
    private readonly view: WidgetView,
    private readonly channel: KernelChannel,
    private readonly kind: ViewKind,
    private readonly life: ViewLife,
    private readonly hooks: DrawingHooks,
  ) {
    // The page's WebGL budget: this view's entry, and pausing/resuming its frame as it scrolls.
    this.slot = viewBudget(contextsOf(kind.contexts), { pause: () => this.pause(), retire: () => this.retire() });
    // The picture a saved notebook shows until the kernel runs the cell again (js/view/saved-picture.ts).
    this.picture = pictureKeeper({
      widget: model,
      take: () => {
        const current = this.frame;
        if (!current || life.disposed || life.lost || this.paused || !isDisplayed(view.root)) return null;
        return { png: current.picture(), current: () => current === this.frame && !life.disposed && !life.lost };
      },
      kept: () => String(model.get("_picture") ?? ""),
      keep: (url) => {
        model.set("_picture", url);
        model.save_changes();
      },
    });
    let visibilityReported!: () => void;
    this.visibilityKnown = new Promise<void>((resolve) => {
      visibilityReported = resolve;
    });
    // The frame's own area, not the whole widget: a widget whose toolbar is in the viewport and its frame
    // below it is not on screen (Chromium draws a sandboxed frame only while some of it is in view).
    this.stopTracking = trackVisibility(view.body, this.slot.entry, this.redrawNow, visibilityReported);
  }

  /** The frame on screen now, if any (a paused or retired view has none). */
  get current(): ViewerFrame | null {
    return this.frame;
  }

  /** A new graph revision: drawn now, on or off screen (the budget pauses it again if needed). */
  redraw(): void {
    this.paused = false;
    void this.show();
  }

  /**
   * The graph's colours changed (`_colour_rev`, or the colours sent ahead of it landed): the frame drawn
   * takes or asks for them and repaints in place, the graph not sent again. A draw in flight catches up
   * once it has drawn; a paused view draws the graph with its colours when it is back.
   */
  recolour(): void {
    if (!this.recolouring) this.recoloured = this.catchUpColours();
  }

  /**
   * Runs `then` once the recolour in flight, if any, has painted (or failed): other work the same change
   * started in this page (the inspector asking the kernel again) then does not compete with its paint,
   * which it did on the same two cores: the memory overlay, whose switch also refreshes the inspector,
   * painted in 180-220 ms on an opened GPT-2-48 with that refresh beside it, 113-130 ms after it. A
   * recolour that waits (its frame off screen) holds `then` back AFTER_RECOLOUR_MAX_MS at most.
   */
  afterRecolour(then: () => void): void {
    let timer = 0;
    const waited = new Promise<void>((resolve) => {
      timer = window.setTimeout(resolve, AFTER_RECOLOUR_MAX_MS);
    });
    void Promise.race([this.recoloured, waited]).then(() => {
      window.clearTimeout(timer);
      then();
    });
  }

  /** The selection or the view changed: the picture may be taken again. */
  pictureSoon(): void {
    this.picture.soon();
  }

  /** The kernel is gone. A read-only view keeps its frame, still counted in the page's WebGL budget. */
  kernelLost(): void {
    this.slot.readOnly();
    if (this.paused) this.retire(); // nothing can redraw it now: its picture
  }

  /** Restored from a saved notebook, no kernel behind it: its picture, and how to get the live view back. */
  showSavedPicture(): void {
    this.slot.free();
    const saved = String(this.model.get("_picture") ?? "");
    this.view.setTitle(VIEWER_TITLES[this.model.get("viewer") as Viewer] ?? "");
    this.view.showSavedPicture(
      saved,
      saved ? "Run this cell for the live view: this is a picture of its last draw (no kernel runs it yet)." : lossMessage("restored"),
    );
  }

  dispose(): void {
    this.drawAbort.abort();
    this.picture.dispose();
    this.stopTracking();
    this.slot.free();
    this.frame?.dispose();
  }

  /** Whether the browser paints this view's frame now: laid out, and in the viewport. */
  private readonly onScreen = () => isDisplayed(this.view.root) && this.slot.entry.visible;

  /** Stops the draw in flight: it returns at its next await, and its timers stop now. */
  private supersede(): number {
    this.drawAbort.abort();
    this.drawAbort = new AbortController();
    return ++this.generation;
  }

  private report(status: "loading" | "ready" | "error" | "paused", error = "", drew = false): void {
    if (this.life.lost) return; // nobody is listening any more
    this.model.set("status", status);
    this.model.set("error", error);
    if (drew) this.model.set("draws", (this.model.get("draws") ?? 0) + 1);
    this.model.save_changes();
  }

  private fail(error: unknown): void {
    if (this.life.disposed || this.life.lost) return; // a request the lost kernel never answered: already explained
    const text = errorText(error);
    this.view.showError(text, error); // an error whose remedy is another viewer offers the switch
    this.report("error", text);
  }

  /** Draws the current graph; a later show() or a pause makes this one stop at its next await. */
  async show(): Promise<void> {
    const mine = this.supersede();
    this.drawnFrame = null; // a draw in flight: its graph comes with its colours, caught up once drawn
    try {
      await this.draw(mine);
    } catch (error) {
      if (mine === this.generation) this.fail(error); // a superseded draw's failure is nobody's business
    }
  }

  private async draw(mine: number): Promise<void> {
    const { model, view } = this;
    const stale = () => this.life.disposed || mine !== this.generation;
    const drawStartedAt = Date.now(); // the view asks for its inputs (benchmarks split a cell's time here)
    view.clearError();
    this.report("loading");
    // Asks only once the kernel has said which assets and graph to show (VS Code can render first).
    const { viewer, bundle, graph } = await fetchDrawInputs(model, this.channel, {
      onWaiting: () => view.setStatus("Waiting for the kernel…", "loading"),
      onLoading: (name) => {
        const title = VIEWER_TITLES[name];
        view.setTitle(title);
        view.setStatus(`Loading ${title}…`, "loading");
      },
      counting: () => isDisplayed(view.root) && !kernelBusy(model.widget_manager),
      budgetMs: RENDER_BUDGET_MS,
    });
    if (stale()) return;
    let graphLanded = performance.now(); // when the graph was in the page (renderMs counts from there)
    let landed = false;
    // A frame draws only on screen (see below): until it has, the status line says which wait it is.
    const sayWhatDraws = () => {
      if (stale() || !landed) return;
      const nodes = nodeCount(model.get("_graph_info"));
      view.setStatus(
        this.onScreen() ? `Laying out ${nodes} nodes…` : `Waiting to be on screen: ${nodes} nodes are drawn when this view is scrolled to.`,
        "loading",
      );
    };
    const layingOut = () => {
      graphLanded = performance.now();
      landed = true;
      sayWhatDraws();
    };
    let rendered: Promise<number> | null = null;
    if (this.frame && this.frame.viewer === viewer) {
      const next = await graph;
      if (stale()) return;
      layingOut();
      rendered = (await this.frame.replace(next))?.drawn ?? null;
      if (stale()) return;
    } else {
      void graph.then(layingOut, () => undefined); // a new frame boots meanwhile
    }
    if (!rendered) {
      this.frame?.dispose();
      this.frame = null;
      if (viewer === "model-explorer" && !(await this.readyToBoot(graph))) return;
      const created = createViewer(viewer, view.body, bundle, graph, this.kind.takesParkedApp(model), {
        onSelect: this.hooks.onSelect,
        onContextLost: () => this.onContextLost(),
        onNotice: (text) => view.setNotice(text),
        onEscape: this.hooks.onEscape,
      });
      this.frame = created;
      rendered = created.rendered;
      // No graph for a frame that booted for it: nothing half-drawn stays (the error box says why).
      graph.catch(() => {
        if (this.frame !== created) return;
        created.dispose();
        this.frame = null;
        view.setImageFormats([]);
      });
      view.setImageFormats(created.imageFormats);
      view.showPlaceholder("");
      if (created.viewer === "model-explorer")
        this.slot.hold(); // may pause a long-hidden explorer, or this one (then the draw is stale)
      else this.slot.free(); // Netron draws SVG: no WebGL context
      if (stale()) return;
    }
    const current = this.frame!;
    // Only time in the viewport counts. Both viewers' frames are sandboxed (cross-origin), and Chromium
    // runs no animation frame in such a frame while it is off screen: Netron lays out after three of
    // them, Model Explorer renders in them. A frame below the fold draws once it is scrolled to.
    const sayingWhatDraws = window.setInterval(sayWhatDraws, 500);
    const frameMs = await pausableDeadline(
      rendered,
      this.onScreen,
      () => drawTimeout(current),
      RENDER_BUDGET_MS,
      this.drawAbort.signal,
    ).finally(() => window.clearInterval(sayingWhatDraws));
    if (stale()) return;
    const selected = model.get("selected_node");
    if (selected) current.select(selected);
    current.highlight(model.get("_highlight_nodes") ?? [], highlightRoles(model.get("_highlight_roles")));
    const data = this.el.dataset;
    data.frameMs = String(Math.round(frameMs));
    data.viewer = current.viewer; // which viewer drew last (a switch's redraw is told apart)
    data.assetRequests = String(assetTransfers().requests);
    this.painted(drawStartedAt, graphLanded);
    this.drawnFrame = current;
    this.recolour(); // colours that changed while it drew
  }

  /** Recolours the frame drawn until it shows the revision wanted (wantedColourRev), one change at a time. */
  private async catchUpColours(): Promise<void> {
    this.recolouring = true;
    try {
      for (;;) {
        const frame = this.frame;
        if (!frame || frame !== this.drawnFrame || this.life.disposed || this.life.lost) return;
        if (this.wantedColourRev(frame) <= frame.colours.colourRev) return;
        const mine = this.generation;
        try {
          await this.recolourOnce(frame, () => this.life.disposed || mine !== this.generation || frame !== this.frame);
        } catch (error) {
          if (mine === this.generation && frame === this.frame) this.fail(error);
          return;
        }
      }
    } finally {
      this.recolouring = false;
    }
  }

  /**
   * Repaints the graph `frame` drew with the colours the kernel sent ahead for the widget's revision,
   * or else asks for them (naming the node facts the frame holds).
   */
  private async recolourOnce(frame: ViewerFrame, stale: () => boolean): Promise<void> {
    const askedAt = Date.now();
    const colours = this.coloursAhead(frame) ?? (await this.askColours(frame));
    if (stale()) return;
    const landedAt = performance.now();
    const painted = frame.recolour(colours);
    if (!painted) {
      this.redraw(); // the frame cannot repaint in place: drawn again, with the colours
      return;
    }
    await pausableDeadline(painted, this.onScreen, () => drawTimeout(frame), RENDER_BUDGET_MS, this.drawAbort.signal);
    if (stale()) return;
    this.painted(askedAt, landedAt);
  }

  /**
   * The colour revision `frame` should show: the widget's `_colour_rev`, or the colours the kernel sent
   * ahead of it when they are newer (they land a message before the trait: the recolour starts then).
   */
  private wantedColourRev(frame: ViewerFrame): number {
    const revision = Number(this.model.get("_colour_rev") ?? 0);
    return Math.max(revision, aheadFor(frame, this.channel.peekAhead("colours"))?.reply.colourRev ?? 0);
  }

  /**
   * The colours sent ahead, when they are the widget's revision or a newer one (its trait change is on
   * its way) and fit the node facts `frame` shows.
   */
  private coloursAhead(frame: ViewerFrame): Colours | undefined {
    const colours = aheadFor(frame, this.channel.takeAhead("colours"));
    const revision = Number(this.model.get("_colour_rev") ?? 0);
    return colours && colours.reply.colourRev >= revision && coloursFitFacts(colours.reply, frame.colours.facts) ? colours : undefined;
  }

  /** The colours of the graph `frame` drew, asked for (naming the node facts it holds). */
  private async askColours(frame: ViewerFrame): Promise<Colours> {
    const { result, buffers } = await this.channel.request("colours", { facts: frame.colours.facts });
    return { reply: parseColoursReply(frame.viewer, result, buffers.length), buffers };
  }

  /**
   * A graph or its colours are on screen: the status line says so, the widget's draw counter grows,
   * and the view stamps what tests and benchmarks read of its draws: when it asked (wall clock), when
   * the reply landed (`landedAt`, performance clock), when it painted, and its own count.
   */
  private painted(askedAt: number, landedAt: number): void {
    this.view.setStatus(this.hooks.statusText(), "ready"); // a view whose kernel is gone keeps saying so (view.ts)
    const data = this.el.dataset;
    data.renderMs = String(Math.round(performance.now() - landedAt));
    data.drawStartedAt = String(askedAt);
    data.graphLandedAt = String(Math.round(Date.now() - (performance.now() - landedAt)));
    data.renderedAt = String(Date.now());
    data.draws = String(Number(data.draws ?? 0) + 1);
    this.report("ready", "", true);
    this.picture.soon();
  }

  private pause(text = PAUSED_OFF_SCREEN, redraw?: () => void): void {
    if (!this.frame || this.life.disposed || this.life.lost) return;
    this.supersede(); // an in-flight draw stops at its next await
    this.frame.dispose();
    this.frame = null;
    this.view.setImageFormats([]);
    this.paused = true;
    this.view.showPlaceholder(text, redraw && { label: "Redraw", onClick: redraw });
    this.view.setStatus(text, "paused");
    this.report("paused");
  }

  /** A read-only view gives up its frame (the budget needs it, or its context was lost): its picture instead. */
  private retire(): void {
    const { lost } = this.life;
    if (this.life.disposed || !lost || lost === "restored" || this.retired) return;
    this.retired = true;
    this.supersede();
    this.frame?.dispose();
    this.frame = null;
    this.paused = false; // nothing redraws it: the picture stays
    this.view.setImageFormats([]);
    const saved = String(this.model.get("_picture") ?? "");
    const text = lossMessage(lost);
    this.view.showSavedPicture(saved, saved ? `A picture of its last draw. ${text}` : text);
  }

  private readonly redrawNow = () => {
    if (!this.paused || this.life.lost || this.life.disposed) return;
    this.paused = false;
    void this.show();
  };

  // The browser dropped a WebGL context of the frame (its per-page limit, a GPU reset): the canvas is
  // blank for good, so the frame goes, never "ready" over a blank graph. On screen it is redrawn at
  // once, a few times a minute at most (js/view/redraw-guard.ts); else the view pauses like an off-screen
  // one, redraws when it is on screen again, and offers a Redraw button meanwhile.
  private onContextLost(): void {
    this.slot.free();
    if (this.life.lost) {
      this.retire();
      return;
    }
    const shown = this.onScreen() && document.visibilityState === "visible";
    if (shown && this.mayRedrawNow()) {
      this.pause("Redrawing: the browser dropped this view's WebGL context (too many on the page, or a GPU reset).");
      this.redrawNow();
      return;
    }
    this.pause(
      shown
        ? "Paused: the browser keeps dropping this view's WebGL context (too many on the page, or a GPU reset)."
        : "Paused: the browser dropped this view's WebGL context (too many on the page, or a GPU reset). It redraws when it is on screen again.",
      this.redrawNow,
    );
  }

  /**
   * Waits until a new Model Explorer frame may start; false if the draw went stale meanwhile. On
   * screen it starts at once and boots during the kernel's export. Off screen it waits for the graph
   * (it cannot draw there anyway): a notebook of many explorers does not boot them all at once, and
   * the WebGL budget admits frames knowing which views are on screen.
   */
  private async readyToBoot(graph: Promise<unknown>): Promise<boolean> {
    const mine = this.generation;
    const landed = graph.then(
      () => undefined,
      () => undefined,
    );
    await Promise.race([this.visibilityKnown, landed]);
    // The visibility of every view as of now: a scroll's intersection reports arrive a rendering step
    // after it, and the budget chooses which explorers to pause by them.
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    if (!this.slot.entry.visible) await landed;
    return !this.life.disposed && mine === this.generation;
  }
}
