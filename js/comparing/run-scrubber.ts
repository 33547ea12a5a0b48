// The run scrubber of a comparison (tlw.compare) in a row under the toolbar: a slider over the runs with the run
// shown named beside it, previous / next buttons, the arrow keys while it has the focus, and a play
// button that steps through the runs. It sets the model's `run`; the kernel recolours the graph in place
// (the path of an overlay switch). It never takes the focus itself: only a click or the user's Tab
// gives it the focus, and nothing here calls focus().
import { listen, type TraitsModel } from "../view/traits";
import type { ViewLife } from "../view/view-life";

/** How long the play button shows each run before the next (a recolour takes well under this). */
export const PLAY_STEP_MS = 1500;

/** The timers the scrubber plays with (tests pass fake ones). */
export interface ScrubberTimers {
  setInterval(handler: () => void, ms: number): number;
  clearInterval(id: number): void;
}

const WINDOW_TIMERS: ScrubberTimers = {
  setInterval: (handler, ms) => window.setInterval(handler, ms),
  clearInterval: (id) => window.clearInterval(id),
};

function button(className: string, text: string, label: string): HTMLButtonElement {
  const element = document.createElement("button");
  element.type = "button";
  element.className = `tlw-scrub-button ${className}`;
  element.textContent = text;
  element.title = label;
  element.setAttribute("aria-label", label);
  return element;
}

export class RunScrubber {
  readonly root: HTMLSpanElement;
  readonly slider: HTMLInputElement;
  readonly previous: HTMLButtonElement;
  readonly next: HTMLButtonElement;
  readonly play: HTMLButtonElement;
  private readonly name: HTMLSpanElement;
  private runs: string[] = [];
  private index = 0;
  private reference = "";
  private timer: number | null = null;

  constructor(
    /** Called with the run the user picked (never for a run set by the kernel). */
    private readonly onPick: (run: string) => void,
    private readonly timers: ScrubberTimers = WINDOW_TIMERS,
    private readonly stepMs: number = PLAY_STEP_MS,
  ) {
    this.root = document.createElement("span");
    this.root.className = "tlw-scrubber";
    this.root.setAttribute("role", "group");
    this.root.setAttribute("aria-label", "Run shown");
    this.previous = button("tlw-scrub-previous", "◀", "Previous run (←)");
    this.next = button("tlw-scrub-next", "▶", "Next run (→)");
    this.play = button("tlw-scrub-play", "Play", "Step through the runs");
    this.play.setAttribute("aria-pressed", "false");
    this.slider = document.createElement("input");
    this.slider.type = "range";
    this.slider.className = "tlw-scrub-slider";
    this.slider.min = "0";
    this.slider.step = "1";
    this.slider.setAttribute("aria-label", "Run shown");
    this.name = document.createElement("span");
    this.name.className = "tlw-scrub-name";
    this.root.append(this.previous, this.slider, this.next, this.name, this.play);
    this.previous.onclick = () => this.stop() || this.step(-1);
    this.next.onclick = () => this.stop() || this.step(1);
    this.play.onclick = () => (this.timer === null ? this.start() : this.stop());
    // The slider moves by its own arrow keys, Home / End and the pointer.
    this.slider.addEventListener("input", () => {
      this.stop();
      this.pick(Number(this.slider.value));
    });
    this.root.addEventListener("keydown", (event) => this.onKey(event));
  }

  /** The runs, the run shown and the reference, as the kernel says them. */
  show(runs: string[], run: string, reference: string): void {
    this.runs = [...runs];
    this.reference = reference;
    this.index = Math.max(0, this.runs.indexOf(run));
    this.slider.max = String(Math.max(0, this.runs.length - 1));
    this.slider.value = String(this.index);
    const shown = this.runs[this.index] ?? "";
    const text = `${shown}${shown === reference ? " (reference)" : ""}`;
    this.name.textContent = `${text} · ${this.index + 1}/${this.runs.length}`;
    this.slider.setAttribute("aria-valuetext", text);
    this.slider.title = this.runs.map((name, i) => `${i + 1}. ${name}${name === reference ? " (reference)" : ""}`).join("\n");
    this.previous.disabled = this.index <= 0;
    this.next.disabled = this.index >= this.runs.length - 1;
  }

  /** The view lost its kernel (or closed): nothing may be asked any more. */
  disable(): void {
    this.stop();
    for (const control of [this.previous, this.next, this.play, this.slider]) control.disabled = true;
  }

  get playing(): boolean {
    return this.timer !== null;
  }

  dispose(): void {
    this.stop();
  }

  private step(delta: number): void {
    this.pick(this.index + delta);
  }

  private pick(index: number): void {
    const clamped = Math.min(Math.max(index, 0), this.runs.length - 1);
    if (clamped === this.index || !this.runs.length) {
      this.show(this.runs, this.runs[this.index] ?? "", this.reference); // the slider back where the run is
      return;
    }
    this.show(this.runs, this.runs[clamped] ?? "", this.reference);
    this.onPick(this.runs[clamped] ?? "");
  }

  private start(): void {
    if (this.runs.length < 2) return;
    if (this.index >= this.runs.length - 1) this.pick(0); // from the last run, play from the first
    this.timer = this.timers.setInterval(() => {
      if (this.index >= this.runs.length - 1) this.stop();
      else this.step(1);
    }, this.stepMs);
    this.play.textContent = "Pause";
    this.play.setAttribute("aria-pressed", "true");
  }

  /** Stops playing; false, so that `stop() || step()` reads as "stop, then step". */
  private stop(): false {
    if (this.timer !== null) this.timers.clearInterval(this.timer);
    this.timer = null;
    this.play.textContent = "Play";
    this.play.setAttribute("aria-pressed", "false");
    return false;
  }

  private onKey(event: KeyboardEvent): void {
    const delta =
      event.key === "ArrowLeft" || event.key === "ArrowDown" ? -1 : event.key === "ArrowRight" || event.key === "ArrowUp" ? 1 : 0;
    if (!delta) return;
    // Not the notebook's: the arrows would move between cells in JupyterLab's command mode.
    event.stopPropagation();
    if (event.target === this.slider) return; // the slider steps itself (its input event picks)
    event.preventDefault();
    this.stop();
    this.step(delta);
  }
}

/**
 * The scrubber of a model with runs (a comparison), put under the toolbar by `attach`; returns what removes
 * it. A view without a kernel (`life.lost`) shows the run it has and asks for none.
 */
export function bindRunScrubber(model: TraitsModel, attach: (element: HTMLElement) => void, life: ViewLife): () => void {
  const runs = model.get("runs");
  if (!Array.isArray(runs) || runs.length < 2) return () => undefined;
  const scrubber = new RunScrubber((run) => {
    if (life.lost) {
      scrubber.disable();
      return;
    }
    model.set("run", run);
    model.save_changes();
  });
  const refresh = () => scrubber.show(model.get("runs") ?? [], model.get("run") ?? "", model.get("reference") ?? "");
  refresh();
  attach(scrubber.root);
  const stop = listen(model, [
    ["change:runs", refresh],
    ["change:run", refresh],
    ["change:reference", refresh],
  ]);
  return () => {
    scrubber.dispose();
    stop();
  };
}
