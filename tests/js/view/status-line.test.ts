// The status line under the toolbar: the memory summary is in it while the kernel says memory is shown.
import { describe, expect, it } from "vitest";
import { exploreView } from "../../../js/view/explore-view";
import { statusLine } from "../../../js/view/status-line";
import type { TraitsModel } from "../../../js/view/traits";
import { FakeWidgetModel } from "../fake-widget-model";

const LINE = "Memory peak 207.8 MB at linear_1_101:1 in lm_head: 3.5 MB alive above the 204.3 MB baseline";

function model(state: Record<string, unknown>): TraitsModel {
  const base = { _graph_info: { graphs: { "00-execution": 109 } }, selected_label: "", highlighted: [] };
  return new FakeWidgetModel({ ...base, ...state }) as unknown as TraitsModel;
}

describe("statusLine", () => {
  it("says the memory summary while memory is shown, and nothing of it otherwise", () => {
    expect(statusLine(model({ _memory_line: LINE }), exploreView)).toBe(`109 nodes · click a node to select it · ${LINE}`);
    expect(statusLine(model({ _memory_line: "" }), exploreView)).toBe("109 nodes · click a node to select it");
  });

  it("says it once when the last answer is the same line (memory_peak())", () => {
    const line = statusLine(model({ _memory_line: LINE, debug_status: LINE }), exploreView);
    expect(line.split(LINE).length - 1).toBe(1);
    expect(line.startsWith(LINE)).toBe(true);
  });
});
