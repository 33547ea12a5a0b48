// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { KernelChannel } from "../../../js/kernel/channel";
import { DebugButtons } from "../../../js/inspector/debug-buttons";
import { exploreView } from "../../../js/view/explore-view";
import type { Inspection } from "../../../js/inspector/inspection";
import { InspectorPanel } from "../../../js/inspector/inspector";
import { type Recording, ReplayModel } from "../../../js/kernel/offline";
import { type PanelInspectReply, RECORDING_FORMAT } from "../../../js/kernel/protocol";
import type { TraitsModel } from "../../../js/view/traits";
import { WidgetView } from "../../../js/view/view";
import { FakeWidgetModel } from "../fake-widget-model";

// The toolbar's debug questions and the inspector's lineage buttons each ask the kernel. A page saved
// by save_html() replays a recording, which holds no debug answer: it offers none of these buttons,
// whatever its state says (a file saved by an older version wrote `_debug_questions`).
const STATE = { _debug_questions: ["first_nonfinite", "explain_nonfinite"], selected_label: "linear_1_1:1" };

function recording(): Recording {
  return {
    format: RECORDING_FORMAT,
    state: STATE,
    buffers: [],
    assets: { result: {}, buffers: [] },
    graphs: { "": { reply: { result: {}, buffers: [] }, summary: "" } },
    refused: {},
    labels: {},
    inspect: {},
  };
}

const OP: PanelInspectReply = {
  kind: "op",
  label: "linear_1_1:1",
  title: "linear_1_1:1",
  privacy_profile: "local",
  expression: 'log["linear_1_1:1"]',
  facts: [{ key: "op", name: "op", value: "linear", text: "linear" }],
  value: null,
} as unknown as PanelInspectReply;

/** A view's toolbar and inspector with the debug buttons the model offers. */
function offered(model: TraitsModel): { toolbar: string[]; lineage: number } {
  const view = new WidgetView(document.createElement("div"), 400);
  const panel = new InspectorPanel();
  view.attachSide(panel.root);
  const buttons = new DebugButtons(model, view, new KernelChannel(model), { disposed: false, lost: null }, () => "");
  buttons.offerLineage(exploreView, { panels: [panel] } as unknown as Inspection);
  buttons.refresh();
  panel.update(OP, []);
  return {
    toolbar: [...view.root.querySelectorAll<HTMLButtonElement>(".tlw-debug button")].map((button) => button.dataset.question ?? ""),
    lineage: view.root.querySelectorAll(".tlw-insp-lineage button").length,
  };
}

describe("the debug buttons a view offers", () => {
  it("are the kernel's questions and the lineage, with a kernel behind the model", () => {
    const live = new FakeWidgetModel({ ...STATE }) as unknown as TraitsModel;
    expect(offered(live)).toEqual({ toolbar: ["first_nonfinite", "explain_nonfinite"], lineage: 2 });
  });

  it("are none in a saved page, whose recording cannot answer them", () => {
    const saved = new ReplayModel(recording());
    expect(saved.answers("debug")).toBe(false);
    expect(offered(saved as unknown as TraitsModel)).toEqual({ toolbar: [], lineage: 0 });
  });

  it("match what the recording answers: it refuses exactly the requests it says it cannot answer", async () => {
    const saved = new ReplayModel(recording());
    const channel = new KernelChannel(saved);
    for (const method of ["assets", "graph", "inspect", "debug"] as const) {
      const answered = await channel.request(method).then(
        () => true,
        (error: Error) => !/cannot answer/.test(error.message),
      );
      expect([method, answered]).toEqual([method, saved.answers(method)]);
    }
  });
});
