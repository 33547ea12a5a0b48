// The widget's chrome: a toolbar with the status line, an error box, and the body the viewer frame
// lives in. No viewer logic here.
import { STYLES } from "./styles";

export type StatusState = "loading" | "ready" | "error";

export class WidgetView {
  readonly root: HTMLDivElement;
  readonly body: HTMLDivElement;
  private readonly status: HTMLSpanElement;
  private readonly errorBox: HTMLPreElement;
  private readonly title: HTMLSpanElement;

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
    toolbar.append(this.title, this.status);
    this.errorBox = document.createElement("pre");
    this.errorBox.className = "tlw-error";
    this.errorBox.setAttribute("role", "alert");
    this.body = document.createElement("div");
    this.body.className = "tlw-body";
    this.root.append(style, toolbar, this.errorBox, this.body);
    this.setHeight(height);
    el.appendChild(this.root);
  }

  setTitle(text: string): void {
    this.title.textContent = text;
  }

  setHeight(px: number): void {
    this.root.style.height = `${px}px`;
  }

  setStatus(text: string, state: StatusState): void {
    this.status.textContent = text;
    this.status.dataset.state = state;
    this.status.title = text;
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
