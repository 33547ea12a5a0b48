// The inspector's small multiples of a comparison (tlw.compare): the selected node in every run, one row
// per run with a bar of the current overlay's value (against the largest in the row set) and the number,
// the run shown and the reference marked. A click on a row shows that run (sets `run` on the model).
//
// Everything from the kernel reaches the DOM through textContent and attributes only.
import type { RunsSection, RunValue } from "../kernel/protocol";

/** Each run's bar as a fraction of the widest (|value| over the largest |value|); 0 where no value. */
export function barFractions(runs: readonly RunValue[]): number[] {
  const largest = Math.max(0, ...runs.map((run) => (run.value === null ? 0 : Math.abs(run.value))));
  return runs.map((run) => (run.value === null || largest === 0 ? 0 : Math.abs(run.value) / largest));
}

/** The section and its rows (`onRun`: a row is a button that shows its run; null on a page with no kernel
 * to tell: plain rows). */
export function runsBox(
  doc: Document,
  section: RunsSection,
  onRun: ((run: string) => void) | null,
): { box: HTMLElement; rows: HTMLElement[] } {
  const box = doc.createElement("section");
  box.className = "tlw-insp-runs";
  const head = doc.createElement("h4");
  head.textContent = section.overlay ? `${section.overlay} in every run` : "in every run (no overlay on)";
  const list = doc.createElement("ol");
  list.className = "tlw-insp-runs-list";
  const fractions = barFractions(section.runs);
  const rows: HTMLElement[] = [];
  section.runs.forEach((run, i) => {
    const row = doc.createElement(onRun ? "button" : "div");
    row.className = "tlw-insp-run";
    row.dataset.run = run.name;
    row.dataset.lacks = String(run.lacks);
    row.dataset.reference = String(run.name === section.reference);
    if (onRun) {
      row.setAttribute("type", "button");
      row.title = `Show run ${run.name} on the graph`;
      row.addEventListener("click", () => onRun(run.name));
    }
    const name = doc.createElement("span");
    name.className = "tlw-insp-run-name";
    name.textContent = run.name === section.reference ? `${run.name} (ref)` : run.name;
    const bar = doc.createElement("span");
    bar.className = "tlw-insp-run-bar";
    const fill = doc.createElement("span");
    fill.className = "tlw-insp-run-fill";
    fill.style.width = `${(fractions[i] ?? 0) * 100}%`;
    bar.append(fill);
    const number = doc.createElement("span");
    number.className = "tlw-insp-run-number";
    number.textContent = run.text;
    row.append(name, bar, number);
    const item = doc.createElement("li");
    item.append(row);
    list.append(item);
    rows.push(row);
  });
  box.append(head, list);
  markShownRun(rows, section.shown);
  return { box, rows };
}

/** Marks the run shown among a section's rows (the kernel's `run` changed: the values did not). */
export function markShownRun(rows: readonly HTMLElement[], run: string): void {
  for (const row of rows) {
    const shown = row.dataset.run === run;
    row.dataset.shown = String(shown);
    if (row.tagName.toLowerCase() === "button") row.setAttribute("aria-pressed", String(shown));
  }
}

// Appended to the inspector's styles (js/inspector/inspector.ts).
export const RUNS_STYLES = `
.tlw-insp-runs { margin: 4px 0 6px; padding-top: 2px; border-top: 1px solid var(--jp-border-color2, #d0d0d0); }
.tlw-insp-runs > h4 { margin: 4px 0 2px; font-size: 12px; }
.tlw-insp-runs-list { list-style: none; margin: 0; padding: 0; }
.tlw-insp-run { display: grid; grid-template-columns: minmax(0, 9em) 1fr auto; align-items: center; gap: 6px; width: 100%;
  box-sizing: border-box; margin: 0; padding: 1px 4px; font: inherit; color: inherit; text-align: left;
  border: 1px solid transparent; border-radius: 3px; background: none; }
.tlw-insp-runs button.tlw-insp-run { cursor: pointer; }
.tlw-insp-runs button.tlw-insp-run:hover { border-color: var(--jp-border-color1, #bbb); }
.tlw-insp-run[data-shown="true"] { border-color: #1a5fb4; background: var(--jp-layout-color2, #eef4fa); font-weight: 600; }
.tlw-insp-run-name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-family: var(--jp-code-font-family, monospace); }
.tlw-insp-run[data-reference="true"] .tlw-insp-run-name { font-style: italic; }
.tlw-insp-run-bar { height: 8px; background: var(--jp-layout-color3, #e8e8e8); border-radius: 2px; overflow: hidden; }
.tlw-insp-run-fill { display: block; height: 100%; background: var(--jp-brand-color1, #1976d2); }
.tlw-insp-run-number { font-family: var(--jp-code-font-family, monospace); font-weight: normal; }
.tlw-insp-run[data-lacks="true"] .tlw-insp-run-number { color: var(--jp-warn-color0, #a65e00); }
`;
