// The widget's chrome: a toolbar with the status line, an error box, and the body the viewer frame
// lives in. No viewer logic here.
import type { DebugQuestion } from "./protocol";
import { STYLES } from "./styles";

/** Height of the row of inspectors under a diff's panes (see styles.ts). */
const DIFF_INSPECTOR_HEIGHT = 260;

/** The toolbar's debug buttons: what each says and what its tooltip explains. */
const DEBUG_BUTTONS: Record<DebugQuestion, { text: string; title: string }> = {
  first_divergence: {
    text: "First divergence",
    title: "Select the first op where the two runs differ (torchlens.debug.first_divergence)",
  },
  first_nonfinite: { text: "First non-finite", title: "Select the first op whose output holds a NaN or an Inf" },
};

export type StatusState = "loading" | "ready" | "error" | "disconnected" | "paused";

export class WidgetView {
  readonly root: HTMLDivElement;
  readonly body: HTMLDivElement;
  private readonly main: HTMLDivElement;
  private readonly status: HTMLSpanElement;
  private readonly errorBox: HTMLPreElement;
  private readonly title: HTMLSpanElement;
  private readonly overlaySelect: HTMLSelectElement;
  private readonly overlayInfo: HTMLSpanElement;
  private readonly notice: HTMLDivElement;
  private readonly chips: HTMLDivElement;
  private readonly overlayLabel: HTMLLabelElement;
  private readonly debugButtons: HTMLSpanElement;

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
    this.debugButtons = document.createElement("span");
    this.debugButtons.className = "tlw-debug";
    this.debugButtons.setAttribute("role", "group");
    this.debugButtons.setAttribute("aria-label", "Ask torchlens");
    toolbar.append(this.title, this.status, this.debugButtons, overlayLabel, this.overlayInfo);
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
    this.main.append(panel);
  }

  setTitle(text: string): void {
    this.title.textContent = text;
  }

  setHeight(px: number): void {
    // A diff's inspectors sit below its panes: the panes keep the height asked for.
    const extra = this.root.dataset.kind === "diff" ? DIFF_INSPECTOR_HEIGHT : 0;
    this.root.style.height = `${px + extra}px`;
  }

  setStatus(text: string, state: StatusState): void {
    this.status.textContent = text;
    this.status.dataset.state = state;
    this.status.title = text;
  }

  /** A message in place of the viewer (a paused frame), or none. */
  showPlaceholder(text: string): void {
    this.body.querySelector(":scope > .tlw-placeholder")?.remove();
    if (!text) return;
    const placeholder = document.createElement("div");
    placeholder.className = "tlw-placeholder";
    placeholder.textContent = text;
    this.body.append(placeholder);
  }

  /** The kernel is gone: the graph stays readable, the controls that need the kernel are disabled. */
  setDisconnected(text: string): void {
    this.setStatus(text, "disconnected");
    this.root.dataset.live = "false";
    this.overlaySelect.disabled = true;
    // The inspector's lineage buttons too: every button here asks the kernel.
    for (const button of this.root.querySelectorAll<HTMLButtonElement>(".tlw-chips button, .tlw-debug button, .tlw-insp-lineage button"))
      button.disabled = true;
  }

  showError(text: string): void {
    this.errorBox.textContent = text;
    this.errorBox.dataset.visible = "true";
    this.setStatus("Failed: see the message above.", "error");
  }

  clearError(): void {
    this.errorBox.textContent = "";
    this.errorBox.dataset.visible = "false";
  }
}
