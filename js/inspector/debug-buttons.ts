// The toolbar's debug questions (first divergence, first non-finite) and the inspector's lineage
// buttons. Each asks the kernel (`debug`), which does what the Python call does (selects, centres,
// highlights, sets `debug_status`); the reply's status is shown at once, the traits follow.
import type { KernelChannel } from "../kernel/channel";
import type { Inspection } from "./inspection";
import { isRecording } from "../kernel/offline";
import { debugQuestions, parseDebugReply, type DebugParams } from "../kernel/protocol";
import type { TraitsModel } from "../view/traits";
import type { WidgetView } from "../view/view";
import type { ViewKind } from "../view/view-kind";
import { errorText } from "../shared/error-text";
import type { ViewLife } from "../view/view-life";

export class DebugButtons {
  constructor(
    private readonly model: TraitsModel,
    private readonly view: WidgetView,
    private readonly channel: KernelChannel,
    private readonly life: ViewLife,
    /** The status line with this answer in it. */
    private readonly statusWith: (answer: string) => string,
  ) {}

  /**
   * Whether the model can answer a debug question: a kernel can; a saved page's recording answers only
   * what it recorded, which is no debug answer, so its page offers no button that could only fail.
   */
  private get answersDebug(): boolean {
    return !isRecording(this.model) || this.model.answers("debug");
  }

  /** Offers lineage in the kind's panels (where the model can answer it). */
  offerLineage(kind: ViewKind, inspection: Inspection): void {
    if (!this.answersDebug) return;
    for (const side of kind.lineagePanels)
      inspection.panels[side]?.setLineageHandler((direction) => void this.ask({ question: "lineage", direction }));
  }

  /** The toolbar's buttons, as the kernel offers them for this capture. */
  refresh(): void {
    const questions = this.answersDebug ? debugQuestions(this.model.get("_debug_questions")) : [];
    this.view.setDebugQuestions(questions, (question) => void this.ask({ question }));
  }

  private async ask(params: DebugParams): Promise<void> {
    if (this.life.lost) return;
    this.view.setNotice("");
    try {
      const { result } = await this.channel.request("debug", params);
      const reply = parseDebugReply(result);
      if (this.life.disposed || this.life.lost) return;
      if (this.model.get("status") === "ready") this.view.setStatus(this.statusWith(reply.status), "ready");
    } catch (error) {
      // A refusal (nothing selected, no baseline) is not a broken widget: it is said like a refused overlay.
      if (!this.life.disposed && !this.life.lost) this.view.setNotice(errorText(error));
    }
  }
}
