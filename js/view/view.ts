// The widget's chrome: a toolbar with the status line, an error box, and the body the viewer frame
// lives in. No viewer logic here.
import { viewerRemedy } from "../shared/error-text";
import { STRIP_HEIGHT } from "../memory/memory-strip";
import { type DebugQuestion, type Viewer, VIEWER_TITLES } from "../kernel/protocol";
import { STYLES } from "./styles";

/** Height of the row of inspectors under a diff's panes (see styles.ts). */
const DIFF_INSPECTOR_HEIGHT = 260;
/** Height of the divider above them, with its fold button (all that is left of them when folded). */
const DIFF_FOLDED_HEIGHT = 18;
/** How long the pointer rests on a colour control before the kernel is told a pick may follow. */
export const HOVER_INTENT_MS = 250;

/** Four corners: maximize/restore (an icon of its own: no font on every host has a glyph for it). */
function cornersIcon(): SVGSVGElement {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 12 12");
  svg.setAttribute("width", "12");
  svg.setAttribute("height", "12");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", "M1 4V1h3M8 1h3v3M11 8v3H8M4 11H1V8");
  path.setAttribute("fill", "none");
  path.setAttribute("stroke", "currentColor");
  path.setAttribute("stroke-width", "1.5");
  svg.append(path);
  return svg;
}

function toolbarButton(className: string, text: string, label: string): HTMLButtonElement {
  const button = document.createElement("button");
  button.type = "button";
  button.className = `tlw-button ${className}`;
  button.textContent = text;
  button.title = label;
  button.setAttribute("aria-label", label);
  return button;
}

/** The toolbar's debug buttons: what each says and what its tooltip explains. */
const DEBUG_BUTTONS: Record<DebugQuestion, { text: string; title: string }> = {
  first_divergence: {
    text: "First divergence",
    title: "Select the first op where the two runs differ (torchlens.debug.first_divergence)",
  },
  first_nonfinite: { text: "First non-finite", title: "Select the first op whose output holds a NaN or an Inf" },
  explain_nonfinite: {
    text: "Why non-finite?",
    title: "Mark where the NaN or Inf was born (filled) apart from the ops it spread into (boxed), and inspect its inputs",
  },
};

export type StatusState = "loading" | "ready" | "error" | "disconnected" | "paused";

export class WidgetView {
  readonly root: HTMLDivElement;
  readonly body: HTMLDivElement;
  /** The viewer's body and, beside (or under) it, the side panel (js/inspector/inspector-layout.ts splits them). */
  readonly main: HTMLDivElement;
  /** The side panel attachSide() put in, if any. */
  side: HTMLElement | null = null;
  private readonly status: HTMLSpanElement;
  private readonly errorBox: HTMLPreElement;
  private readonly title: HTMLSpanElement;
  private readonly overlaySelect: HTMLSelectElement;
  private readonly overlayInfo: HTMLSpanElement;
  private readonly notice: HTMLDivElement;
  private readonly chips: HTMLDivElement;
  private readonly overlayLabel: HTMLLabelElement;
  private readonly actions: HTMLSpanElement;
  private readonly imageButtons: HTMLSpanElement;
  private saveImage: (format: string) => void = () => undefined;
  /** Sets the widget's viewer; null where the view may not (a diff, a saved page). */
  private switchViewer: ((viewer: Viewer) => void) | null = null;
  private readonly maximizeButton: HTMLButtonElement;
  /** Shows or hides the memory strip under the graph; hidden where the widget has none (a diff). */
  private readonly stripButton: HTMLButtonElement;
  private readonly debugButtons: HTMLSpanElement;
  /** The height asked for (the model's `height`): the graph's, whatever is shown under it. */
  private height = 0;
  private stripShown = false;

  constructor(el: HTMLElement, height: number) {
    el.replaceChildren();
    const style = document.createElement("style");
    style.textContent = STYLES;
    this.root = document.createElement("div");
    this.root.className = "tlw-root";
    const toolbar = document.createElement("div");
    toolbar.className = "tlw-toolbar";
    this.title = document.createElement("span");
    this.title.className = "tlw-title";
    this.status = document.createElement("span");
    this.status.className = "tlw-status";
    this.status.setAttribute("role", "status");
    const overlayLabel = document.createElement("label");
    this.overlayLabel = overlayLabel;
    overlayLabel.className = "tlw-overlay";
    overlayLabel.append("Overlay ");
    this.overlaySelect = document.createElement("select");
    this.overlaySelect.className = "tlw-overlay-select";
    this.overlaySelect.title = "Colour nodes by a fact torchlens measured";
    overlayLabel.append(this.overlaySelect);
    this.overlayInfo = document.createElement("span");
    this.overlayInfo.className = "tlw-overlay-info";
    // The widget's own buttons, last in the toolbar (and in the Tab order).
    this.actions = document.createElement("span");
    this.actions.className = "tlw-actions";
    this.imageButtons = document.createElement("span");
    this.imageButtons.className = "tlw-images";
    this.maximizeButton = toolbarButton("tlw-maximize", "", "Maximize the widget");
    this.maximizeButton.append(cornersIcon());
    this.stripButton = toolbarButton("tlw-strip-switch", "Memory", "Show torchlens' live bytes over execution order under the graph");
    this.stripButton.hidden = true;
    this.actions.append(this.stripButton, this.imageButtons, this.maximizeButton);
    this.debugButtons = document.createElement("span");
    this.debugButtons.className = "tlw-debug";
    this.debugButtons.setAttribute("role", "group");
    this.debugButtons.setAttribute("aria-label", "Ask torchlens");
    toolbar.append(this.title, this.status, this.debugButtons, overlayLabel, this.overlayInfo, this.actions);
    this.notice = document.createElement("div");
    this.notice.className = "tlw-notice";
    this.notice.setAttribute("role", "status");
    this.errorBox = document.createElement("pre");
    this.errorBox.className = "tlw-error";
    this.errorBox.setAttribute("role", "alert");
    this.body = document.createElement("div");
    this.body.className = "tlw-body";
    this.main = document.createElement("div");
    this.main.className = "tlw-main"; // the viewer, and the inspector column beside it
    this.main.append(this.body);
    this.chips = document.createElement("div");
    this.chips.className = "tlw-chips";
    this.root.append(style, toolbar, this.chips, this.notice, this.errorBox, this.main);
    this.setHeight(height);
    el.appendChild(this.root);
  }

  /** Fills the overlay dropdown; `onChange` gets the chosen overlay ("" for none). */
  setOverlayChoices(choices: string[], onChange: (overlay: string) => void): void {
    this.overlaySelect.replaceChildren(
      ...["", ...choices].map((choice) => {
        const option = document.createElement("option");
        option.value = choice;
        option.textContent = choice || "none";
        return option;
      }),
    );
    this.overlaySelect.onchange = () => onChange(this.overlaySelect.value);
  }

  /**
   * `onNear` runs when the pointer rests on the overlay menu or the memory strip's switch
   * (HOVER_INTENT_MS: a pointer passing over the toolbar while the reader scrolls does not count), or
   * one gets the focus (a click, or Tab): a pick or a switch may follow.
   */
  onColourControlsNear(onNear: () => void): void {
    for (const control of [this.overlaySelect, this.stripButton]) {
      let resting: ReturnType<typeof setTimeout> | undefined;
      control.onpointerenter = () => {
        resting = setTimeout(onNear, HOVER_INTENT_MS);
      };
      control.onpointerleave = () => clearTimeout(resting);
      control.onfocus = onNear;
    }
  }

  setOverlay(overlay: string, summary: string): void {
    if (overlay && ![...this.overlaySelect.options].some((option) => option.value === overlay)) {
      const option = document.createElement("option"); // e.g. "field:num_params", set from Python
      option.value = option.textContent = overlay;
      this.overlaySelect.append(option);
    }
    this.overlaySelect.value = overlay;
    this.overlayInfo.textContent = summary;
    this.overlayInfo.title = summary;
  }

  /** The debug questions this capture can answer, as toolbar buttons; `onAsk` gets the question. */
  setDebugQuestions(questions: DebugQuestion[], onAsk: (question: DebugQuestion) => void): void {
    this.debugButtons.replaceChildren(
      ...questions.map((question) => {
        const { text, title } = DEBUG_BUTTONS[question];
        const button = document.createElement("button");
        button.type = "button";
        button.className = "tlw-debug-button";
        button.dataset.question = question;
        button.textContent = text; // its accessible name
        button.title = title;
        button.disabled = this.root.dataset.live === "false";
        button.onclick = () => onAsk(question);
        return button;
      }),
    );
  }

  /** A row of the widget's own under the toolbar (a comparison's run scrubber): the toolbar keeps its status line. */
  attachRow(row: HTMLElement): void {
    this.root.insertBefore(row, this.chips);
  }

  /** A refusal or warning that does not stop the widget (e.g. an overlay this capture cannot show). */
  setNotice(text: string): void {
    this.notice.textContent = text;
    this.notice.dataset.visible = text ? "true" : "false";
  }

  /** Hides the overlay control (the diff view has its own colouring). */
  hideOverlayControl(): void {
    this.overlayLabel.style.display = "none";
    this.overlayInfo.style.display = "none";
  }

  /** A row of clickable entries under the toolbar (the diff's largest deltas), or none. */
  setChips(title: string, entries: { text: string; onClick: () => void }[]): void {
    this.chips.replaceChildren();
    this.chips.dataset.visible = entries.length ? "true" : "false";
    if (!entries.length) return;
    const caption = document.createElement("span");
    caption.className = "tlw-chips-title";
    caption.textContent = title;
    this.chips.append(caption);
    for (const entry of entries) {
      const chip = document.createElement("button");
      chip.type = "button";
      chip.className = "tlw-chip";
      chip.textContent = entry.text;
      chip.onclick = entry.onClick;
      this.chips.append(chip);
    }
  }

  /** Puts a side panel (the inspector) to the right of the viewer. */
  attachSide(panel: HTMLElement): void {
    this.side = panel;
    this.main.append(panel);
  }

  /** Puts a strip (the memory timeline) under the graph and its inspector, hidden until shown. */
  attachStrip(strip: HTMLElement): void {
    this.root.append(strip);
  }

  /** The toolbar's memory strip switch: pressed while the strip is asked for; null hides it. */
  setStripSwitch(pressed: boolean | null, onToggle: (shown: boolean) => void): void {
    this.stripButton.hidden = pressed === null;
    this.stripButton.setAttribute("aria-pressed", String(pressed === true));
    this.stripButton.onclick = () => onToggle(pressed !== true);
  }

  /** A shown strip adds its height under the graph, which keeps the height asked for. */
  setStripShown(shown: boolean): void {
    if (shown === this.stripShown) return;
    this.stripShown = shown;
    this.setHeight(this.height);
  }

  /** What the toolbar's "save image" and "maximize" buttons do, and the error box's switch of viewer. */
  onActions(actions: { saveImage: (format: string) => void; toggleMaximized: () => void; switchViewer?: (viewer: Viewer) => void }): void {
    this.saveImage = actions.saveImage;
    this.maximizeButton.onclick = actions.toggleMaximized;
    this.switchViewer = actions.switchViewer ?? null;
  }

  /** One "save image" button per format the viewer on screen exports (none until it is drawn). */
  setImageFormats(formats: readonly string[]): void {
    this.imageButtons.replaceChildren(
      ...formats.map((format) => {
        const name = format.toUpperCase();
        const button = toolbarButton(`tlw-save-image tlw-save-${format}`, `⤓ ${name}`, `Save an image of the graph (${name})`);
        button.onclick = () => this.saveImage(format);
        return button;
      }),
    );
  }

  /** The maximize button says what it does next. */
  setMaximized(maximized: boolean): void {
    const text = maximized ? "Restore the widget size (Escape)" : "Maximize the widget";
    this.maximizeButton.setAttribute("aria-label", text);
    this.maximizeButton.title = text;
    this.maximizeButton.setAttribute("aria-pressed", String(maximized));
  }

  setTitle(text: string): void {
    this.title.textContent = text;
  }

  setHeight(px: number): void {
    this.height = px;
    // A diff's inspectors sit below its panes: the panes keep the height asked for (folded: a strip).
    // So does the graph above a memory strip.
    const folded = this.root.dataset.inspector === "collapsed";
    const diff = this.root.dataset.kind === "diff" ? DIFF_FOLDED_HEIGHT + (folded ? 0 : DIFF_INSPECTOR_HEIGHT) : 0;
    const extra = diff + (this.stripShown ? STRIP_HEIGHT : 0);
    this.root.style.height = `${px + extra}px`;
  }

  setStatus(text: string, state: StatusState): void {
    // A view whose kernel is gone says so until it closes: a late draw, a wait or a reply must not
    // cover that with "ready" or "loading" (nothing it shows is live any more).
    if (this.root.dataset.live === "false" && state !== "disconnected") return;
    this.status.textContent = text;
    this.status.dataset.state = state;
    this.status.title = text;
  }

  /** A message in place of the viewer (a paused frame), or none; `action`: a button under it. */
  showPlaceholder(text: string, action?: { label: string; onClick: () => void }): void {
    this.body.querySelector(":scope > .tlw-placeholder")?.remove();
    if (!text) return;
    const placeholder = document.createElement("div");
    placeholder.className = "tlw-placeholder";
    const message = document.createElement("span");
    message.textContent = text;
    placeholder.append(message);
    if (action) {
      const button = toolbarButton("tlw-placeholder-action", action.label, action.label);
      button.onclick = action.onClick;
      placeholder.append(button);
    }
    this.body.append(placeholder);
  }

  /**
   * A view restored from a saved notebook with no kernel behind it: the picture of the graph as it was
   * last drawn (or a line saying there is none) instead of the viewer, and the controls disabled.
   */
  showSavedPicture(picture: string, text: string): void {
    this.showPlaceholder(picture ? "" : text);
    if (picture) {
      const image = document.createElement("img");
      image.className = "tlw-saved-picture";
      image.alt = "The graph as it was last drawn";
      image.src = picture;
      this.body.append(image);
    }
    this.setDisconnected(text);
  }

  /** The kernel is gone: the graph stays readable, the controls that need the kernel are disabled. */
  setDisconnected(text: string): void {
    this.setStatus(text, "disconnected");
    this.root.dataset.live = "false";
    this.overlaySelect.disabled = true;
    // The inspector's lineage buttons too: every button here asks the kernel.
    for (const button of this.root.querySelectorAll<HTMLButtonElement | HTMLInputElement>(
      ".tlw-chips button, .tlw-debug button, .tlw-insp-lineage button, .tlw-error button, .tlw-strip-switch, .tlw-scrubber button, .tlw-scrubber input",
    ))
      button.disabled = true;
  }

  /** The error that stopped the draw; one whose remedy is another viewer (`cause`) offers a button to switch. */
  showError(text: string, cause?: unknown): void {
    this.errorBox.textContent = text;
    const viewer = viewerRemedy(cause);
    const switchViewer = this.switchViewer;
    if (viewer && switchViewer) {
      const label = `Switch to ${VIEWER_TITLES[viewer]}`;
      const button = toolbarButton("tlw-error-action", label, label);
      button.onclick = () => switchViewer(viewer);
      button.disabled = this.root.dataset.live === "false";
      this.errorBox.append("\n", button);
    }
    this.errorBox.dataset.visible = "true";
    this.setStatus("Failed: see the message above.", "error");
  }

  clearError(): void {
    this.errorBox.textContent = "";
    this.errorBox.dataset.visible = "false";
  }
}
