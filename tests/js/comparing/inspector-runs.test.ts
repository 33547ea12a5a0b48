// @vitest-environment happy-dom
// The inspector's small multiples of a comparison: every run of the kernel's reply with a bar and its
// number, the run shown and the reference marked, a click on a run sets it; data only as text.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { InspectorPanel } from "../../../js/inspector/inspector";
import { barFractions } from "../../../js/comparing/inspector-runs";
import { parseInspectReply, type PanelInspectReply, type RunValue } from "../../../js/kernel/protocol";

function reply(): PanelInspectReply {
  const file = path.resolve(__dirname, "../../fixtures/protocol/inspect-compare.json");
  const parsed = parseInspectReply(JSON.parse(readFileSync(file, "utf8")).result);
  if (parsed.kind === "none" || !parsed.runs) throw new Error("the fixture selects an op of a comparison");
  return parsed;
}

const rows = (panel: InspectorPanel) => [...panel.root.querySelectorAll<HTMLElement>(".tlw-insp-run")];

describe("the runs section", () => {
  it("lists every run with its number and a bar, the run shown and the reference marked", () => {
    const header = reply();
    const panel = new InspectorPanel();
    panel.update(header, []);
    const shown = rows(panel);
    expect(shown.map((row) => row.dataset.run)).toEqual(["step0", "step1", "step2"]);
    expect(shown.map((row) => row.querySelector(".tlw-insp-run-number")?.textContent)).toEqual(header.runs?.runs.map((r) => r.text));
    expect(shown.map((row) => row.dataset.shown)).toEqual(["false", "true", "false"]);
    expect(shown.map((row) => row.dataset.reference)).toEqual(["true", "false", "false"]);
    expect(shown[0].querySelector(".tlw-insp-run-name")?.textContent).toBe("step0 (ref)");
    const widths = shown.map((row) => row.querySelector<HTMLElement>(".tlw-insp-run-fill")?.style.width);
    expect(widths[0]).toBe("0%"); // the reference has no delta of its own
    expect(widths[1]).toBe("100%"); // the largest delta
    expect(shown.every((row) => row.tagName === "DIV")).toBe(true); // no kernel to tell: plain rows
  });

  it("a click on a run asks for it; the kernel's run moves the mark without a new reply", () => {
    const panel = new InspectorPanel();
    const picked: string[] = [];
    panel.setRunHandler((run) => picked.push(run));
    panel.update(reply(), []);
    const [, , last] = rows(panel);
    expect(last.tagName).toBe("BUTTON");
    last.click();
    expect(picked).toEqual(["step2"]);
    expect(document.activeElement).not.toBe(last); // a click in a test gives no focus; nothing calls focus()
    panel.markShownRun("step2");
    expect(rows(panel).map((row) => row.dataset.shown)).toEqual(["false", "false", "true"]);
    expect(last.getAttribute("aria-pressed")).toBe("true");
  });

  it("a run that lacks the node says so; a hostile run name stays text", () => {
    const header = reply();
    const hostile = "<img src=x onerror=alert(1)>";
    const runs: RunValue[] = [
      { name: hostile, value: null, text: "not in this run", lacks: true },
      { name: "b", value: -2, text: "-2", lacks: false },
    ];
    const panel = new InspectorPanel();
    panel.update({ ...header, runs: { overlay: "magnitude", shown: "b", reference: "b", runs } }, []);
    expect(panel.root.querySelector("img")).toBeNull();
    const [lacking] = rows(panel);
    expect(lacking.dataset.lacks).toBe("true");
    expect(lacking.textContent).toBe(`${hostile}not in this run`);
    expect(panel.root.querySelector(".tlw-insp-runs h4")?.textContent).toBe("magnitude in every run");
  });

  it("bars are |value| over the largest |value|, none without a value", () => {
    const run = (value: number | null): RunValue => ({ name: "r", value, text: "", lacks: false });
    expect(barFractions([run(1), run(-4), run(null), run(2)])).toEqual([0.25, 1, 0, 0.5]);
    expect(barFractions([run(0), run(null)])).toEqual([0, 0]);
  });
});
