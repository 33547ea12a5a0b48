// The view's inspectors in step with the selection: each panel asks the kernel (`inspect`) for its
// label's facts; an answer that arrives after a newer selection is dropped.
import type { KernelChannel } from "../kernel/channel";
import type { InspectorPanel } from "./inspector";
import { parseInspectReply } from "../kernel/protocol";
import type { TraitsModel } from "../view/traits";
import type { ViewKind } from "../view/view-kind";
import { errorText } from "../shared/error-text";
import type { ViewLife } from "../view/view-life";

export class Inspection {
  private generation = 0;

  constructor(
    private readonly model: TraitsModel,
    private readonly kind: ViewKind,
    private readonly channel: KernelChannel,
    readonly panels: InspectorPanel[],
    private readonly life: ViewLife,
  ) {}

  /** Asks about the current selection and shows it in every panel. */
  async refresh(): Promise<void> {
    const mine = ++this.generation;
    const current = () => !this.life.disposed && mine === this.generation;
    const labels = this.kind.inspectLabels(this.model);
    await Promise.all(
      this.panels.map(async (panel, side) => {
        const label = labels[side];
        if (!label) {
          const message = labels.some(Boolean) ? this.kind.missingLabel(side, labels) : null;
          if (message) panel.showMessage(message);
          else panel.clear();
          return;
        }
        panel.showMessage(`Inspecting ${label}…`);
        try {
          const { result: raw, buffers } = await this.channel.request("inspect", { side });
          const result = parseInspectReply(raw);
          if (!current() || result.label !== label) return;
          if (result.kind === "none") panel.clear();
          else {
            panel.update(result, buffers);
            // The run shown now, whatever it was when the reply was made (a saved page's replies are old).
            if (result.runs) panel.markShownRun(this.model.get("run") ?? result.runs.shown);
          }
        } catch (error) {
          if (current()) panel.showMessage(`Could not inspect ${label}: ${errorText(error)}`);
        }
      }),
    );
  }

  /** Every panel says `text` (restored without a kernel: nothing to ask). */
  showMessage(text: string): void {
    for (const panel of this.panels) panel.showMessage(text);
  }

  dispose(): void {
    for (const panel of this.panels) panel.dispose();
  }
}
