// The inspector's box for the selected op while the memory overlay is on: torchlens' estimate of the
// bytes alive when it ran (above its persistent baseline: what the colours show), the largest tensors
// alive then, each named by the op that produced it (a link that selects that op, as a click on the
// graph does), and torchlens' rollup of the module the op ran in.
//
// Everything from the kernel reaches the DOM through textContent only.
import type { MemoryBytes, MemorySection } from "../kernel/protocol";

function line(doc: Document, className: string, text: string): HTMLElement {
  const node = doc.createElement("div");
  node.className = className;
  node.textContent = text;
  return node;
}

/** A tensor's producing op: a button that selects it where the viewer draws it, plain text where not. */
function producer(doc: Document, label: string, nodeId: string, onSelect: ((nodeId: string) => void) | null): HTMLElement {
  if (!nodeId || !onSelect) {
    const code = doc.createElement("code");
    code.textContent = label;
    return code;
  }
  const link = doc.createElement("button");
  link.type = "button";
  link.className = "tlw-insp-memory-link";
  link.dataset.nodeId = nodeId;
  link.textContent = label;
  link.title = `Select ${label}, the op that produced this tensor`;
  link.addEventListener("click", () => onSelect(nodeId));
  return link;
}

function bytesRow(doc: Document, row: MemoryBytes, head: HTMLElement): HTMLElement {
  const item = doc.createElement("li");
  item.dataset.bytes = String(row.bytes);
  const what = doc.createElement("span");
  what.className = "tlw-insp-memory-bytes";
  what.textContent = ` ${row.text}`;
  item.append(head, what);
  return item;
}

/** The box: live bytes, then the largest tensors alive, then the module's rollup (`onSelect`: a link's
 * click selects its op; null on a page with no kernel to tell). */
export function memoryBox(doc: Document, facts: MemorySection, onSelect: ((nodeId: string) => void) | null): HTMLElement {
  const box = doc.createElement("div");
  box.className = "tlw-insp-memory";
  const head = doc.createElement("strong");
  head.textContent = `${facts.live_text} alive when it ran`;
  box.append(
    head,
    line(doc, "tlw-insp-memory-note", `${facts.above_baseline_text} above the ${facts.baseline_text} baseline; ${facts.caption}`),
  );
  const shown =
    facts.alive.length < facts.alive_count ? `the largest ${facts.alive.length} of ${facts.alive_count}` : `${facts.alive_count}`;
  box.append(line(doc, "tlw-insp-memory-title", `tensors alive then (${shown}), by the op that made each`));
  const alive = doc.createElement("ol");
  alive.className = "tlw-insp-memory-alive";
  for (const row of facts.alive) {
    const item = bytesRow(doc, row, producer(doc, row.label, row.node_id, onSelect));
    item.dataset.category = row.name;
    alive.append(item);
  }
  box.append(alive);
  if (facts.module && facts.module_rollup.length) {
    box.append(line(doc, "tlw-insp-memory-title", `module ${facts.module}, with what runs inside it`));
    const rollup = doc.createElement("ul");
    rollup.className = "tlw-insp-memory-rollup";
    for (const row of facts.module_rollup) {
      const name = doc.createElement("span");
      name.textContent = row.name;
      rollup.append(bytesRow(doc, row, name));
    }
    box.append(rollup);
  }
  return box;
}

// Appended to the inspector's styles (js/inspector/inspector.ts).
export const MEMORY_STYLES = `
.tlw-insp-memory { margin: 4px 0 6px; padding: 6px 8px; border-radius: 3px; border: 1px solid #4878a8;
  background: #eef4fa; color: #222; font-size: 11px; }
.tlw-insp-memory > strong { font-size: 12px; }
.tlw-insp-memory-note, .tlw-insp-memory-title { margin: 2px 0 0; color: #555; }
.tlw-insp-memory ol, .tlw-insp-memory ul { margin: 2px 0 0; padding-left: 18px; }
.tlw-insp-memory li { font-family: var(--jp-code-font-family, monospace); overflow-wrap: anywhere; }
.tlw-insp-memory-link { border: none; background: none; padding: 0; color: #1a5fb4; text-decoration: underline;
  cursor: pointer; font: inherit; }
`;
