// The inspector's box for an op that holds non-finite values, once `w.explain_nonfinite()` ran: was
// it born here (a producer: its inputs were finite) or does it carry an earlier op's values, its
// source line, and each input's range against its dtype's limits (torchlens' dtype_range_audit), so
// an overflow shows as an input near the dtype's largest value.
//
// Everything from the kernel reaches the DOM through textContent only.
import { DASH, formatNumber } from "./number-format";
import type { InputRangeRow, NonFiniteFacts } from "./protocol";

const ROLE_TEXT = {
  producer: "Non-finite values are born here: its inputs are finite",
  propagated: "It carries non-finite values an earlier op produced",
} as const;

/** How close an input came to its dtype's largest finite value, e.g. "97% of 65,504". */
export function fractionText(row: InputRangeRow): string {
  if (row.fraction_of_max === null || row.dtype_max === null) return DASH;
  return `${formatNumber(row.fraction_of_max * 100)}% of ${formatNumber(row.dtype_max)}`;
}

function rangeText(row: InputRangeRow): string {
  if (row.minimum === null || row.maximum === null) return row.nan_count || row.inf_count ? "no finite value" : "not saved";
  return `${formatNumber(row.minimum)} … ${formatNumber(row.maximum)}`;
}

function nonFiniteText(row: InputRangeRow): string {
  const parts = [row.nan_count ? `${row.nan_count} NaN` : "", row.inf_count ? `${row.inf_count} Inf` : ""].filter(Boolean);
  return parts.length ? parts.join(", ") : "none";
}

function cell(doc: Document, tag: "td" | "th", text: string, title?: string): HTMLElement {
  const node = doc.createElement(tag);
  node.textContent = text;
  if (title) node.title = title;
  return node;
}

/** The box, headed by the op's role; one table row per input. */
export function nonFiniteBox(doc: Document, facts: NonFiniteFacts): HTMLElement {
  const box = doc.createElement("div");
  box.className = "tlw-insp-nonfinite";
  box.dataset.role = facts.role;
  const head = doc.createElement("strong");
  head.textContent = ROLE_TEXT[facts.role];
  box.append(head);
  if (facts.source) {
    const source = doc.createElement("code");
    source.className = "tlw-insp-nonfinite-source";
    source.textContent = facts.source;
    box.append(source);
  }
  const table = doc.createElement("table");
  const header = doc.createElement("tr");
  for (const name of ["input", "dtype", "range", "|max| / dtype max", "non-finite"]) header.append(cell(doc, "th", name));
  table.append(header);
  for (const row of facts.inputs) {
    const line = doc.createElement("tr");
    line.dataset.input = row.label;
    line.append(
      cell(doc, "td", row.label, row.finding || undefined),
      cell(doc, "td", row.dtype.replace(/^torch\./, "")),
      cell(doc, "td", rangeText(row)),
      cell(doc, "td", fractionText(row), row.finding || undefined),
      cell(doc, "td", nonFiniteText(row)),
    );
    table.append(line);
  }
  if (!facts.inputs.length) box.append(cell(doc, "td", "No tensor inputs (a graph input or a constant)."));
  else box.append(table);
  for (const row of facts.inputs.filter((input) => input.finding)) {
    const finding = doc.createElement("p");
    finding.className = "tlw-insp-nonfinite-finding";
    finding.textContent = `${row.label}: ${row.finding}`;
    box.append(finding);
  }
  return box;
}

// Appended to the inspector's styles (js/inspector.ts).
export const NONFINITE_STYLES = `
.tlw-insp-nonfinite { margin: 4px 0 6px; padding: 6px 8px; border-radius: 3px; border: 2px solid #D81B60;
  background: #fce4ec; color: #222; }
.tlw-insp-nonfinite[data-role="propagated"] { border-color: #7B1FA2; background: #f3e5f5; }
.tlw-insp-nonfinite-source { display: block; margin: 2px 0; font-family: var(--jp-code-font-family, monospace);
  overflow-wrap: anywhere; }
.tlw-insp-nonfinite table { margin: 4px 0 0; }
.tlw-insp-nonfinite th { width: auto; font-size: 11px; color: #444; }
.tlw-insp-nonfinite td { font-size: 11px; }
.tlw-insp-nonfinite-finding { margin: 4px 0 0; font-size: 11px; overflow-wrap: anywhere; }
`;
