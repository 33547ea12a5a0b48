// The inspector's box for an op that holds non-finite values, once `w.explain_nonfinite()` ran: was
// it born here (a producer: its inputs were finite) or does it carry an earlier op's values, its
// source line, and each input's range against its dtype's limits (torchlens' dtype_range_audit), so
// an overflow shows as an input near the dtype's largest value.
//
// Everything from the kernel reaches the DOM through textContent only.
import { DASH, formatNumber } from "../shared/number-format";
import type { InputRangeRow, NonFiniteFacts } from "../kernel/protocol";

/** What the box says of the op: born here from finite inputs, brought in by a parameter or an input
 * that holds them (a NaN weight: torchlens counts no parameter as an op), or carried. */
function roleText(facts: NonFiniteFacts): string {
  if (facts.role === "propagated") return "It carries non-finite values an earlier op produced";
  const carrier = facts.inputs.find((input) => input.nan_count || input.inf_count);
  return carrier
    ? `Non-finite values enter the graph here, through ${carrier.label}`
    : "Non-finite values are born here: its inputs are finite";
}

/** How close an input came to its dtype's largest finite value, e.g. "97% of 65,504". */
export function fractionText(row: InputRangeRow): string {
  if (row.fraction_of_max === null || row.dtype_max === null) return DASH;
  const percent = row.fraction_of_max * 100;
  const shown = percent > 0 && percent < 0.01 ? "< 0.01" : formatNumber(percent);
  return `${shown}% of ${formatNumber(row.dtype_max)}`;
}

function rangeText(row: InputRangeRow): string {
  if (row.minimum === null || row.maximum === null) return row.nan_count || row.inf_count ? "no finite value" : "not saved";
  return `${formatNumber(row.minimum)} … ${formatNumber(row.maximum)}`;
}

function nonFiniteText(row: InputRangeRow): string {
  const parts = [row.nan_count ? `${row.nan_count} NaN` : "", row.inf_count ? `${row.inf_count} Inf` : ""].filter(Boolean);
  return parts.length ? parts.join(", ") : "none";
}

function line(doc: Document, className: string, text: string): HTMLElement {
  const node = doc.createElement("div");
  node.className = className;
  node.textContent = text;
  return node;
}

/** One input: its label and dtype, then its range, its largest magnitude against the dtype's, its
 * non-finite count and torchlens' finding (a list, not a table: the panel is a few hundred px wide). */
function inputBlock(doc: Document, row: InputRangeRow): HTMLElement {
  const block = doc.createElement("div");
  block.className = "tlw-insp-nonfinite-input";
  block.dataset.input = row.label;
  const head = doc.createElement("code");
  head.textContent = `${row.label} · ${row.dtype.replace(/^torch\./, "")}`;
  block.append(
    head,
    line(doc, "tlw-insp-nonfinite-range", `range ${rangeText(row)}`),
    line(doc, "tlw-insp-nonfinite-limit", `|max| ${formatNumber(row.abs_max)}: ${fractionText(row)}`),
    line(doc, "tlw-insp-nonfinite-count", `non-finite: ${nonFiniteText(row)}`),
  );
  if (row.finding) block.append(line(doc, "tlw-insp-nonfinite-finding", row.finding));
  return block;
}

/** The box, headed by the op's role; then its source line and one block per input. */
export function nonFiniteBox(doc: Document, facts: NonFiniteFacts): HTMLElement {
  const box = doc.createElement("div");
  box.className = "tlw-insp-nonfinite";
  box.dataset.role = facts.role;
  const head = doc.createElement("strong");
  head.textContent = roleText(facts);
  box.append(head);
  if (facts.source) {
    const source = doc.createElement("code");
    source.className = "tlw-insp-nonfinite-source";
    source.textContent = facts.source;
    box.append(source);
  }
  box.append(line(doc, "tlw-insp-nonfinite-title", facts.inputs.length ? "its inputs" : "no tensor inputs"));
  for (const row of facts.inputs) box.append(inputBlock(doc, row));
  return box;
}

// Appended to the inspector's styles (js/inspector/inspector.ts).
export const NONFINITE_STYLES = `
.tlw-insp-nonfinite { margin: 4px 0 6px; padding: 6px 8px; border-radius: 3px; border: 2px solid #D81B60;
  background: #fce4ec; color: #222; }
.tlw-insp-nonfinite[data-role="propagated"] { border-color: #7B1FA2; background: #f3e5f5; }
.tlw-insp-nonfinite-source { display: block; margin: 2px 0; font-family: var(--jp-code-font-family, monospace);
  overflow-wrap: anywhere; }
.tlw-insp-nonfinite-title { margin: 4px 0 0; color: #555; font-size: 11px; }
.tlw-insp-nonfinite-input { margin: 2px 0 0; padding: 2px 0 0 6px; border-left: 2px solid rgba(0, 0, 0, 0.15);
  font-size: 11px; font-family: var(--jp-code-font-family, monospace); overflow-wrap: anywhere; }
.tlw-insp-nonfinite-finding { color: #8a3d00; }
`;
