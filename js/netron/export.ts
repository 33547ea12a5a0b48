// What the parent page accepts from the sandboxed Netron frame as a download (pure, unit-tested in
// tests/js/netron-export.test.ts). The frame cannot download itself; whatever it posts is only a
// request, and the page downloads nothing the user did not ask for: an image of the graph, after a
// click in this widget's frame.

/** The only exports: Netron's "Export as PNG" and "Export as SVG", each with its own MIME type. */
export const EXPORT_TYPES: Record<string, string> = { png: "image/png", svg: "image/svg+xml" };

/** What the frame's blob may say for each: Netron 9 labels its SVG export "image/svg". */
const ACCEPTED_TYPES: Record<string, string[]> = { png: ["image/png"], svg: ["image/svg+xml", "image/svg"] };

/** Longest file name offered (extension included). */
export const MAX_NAME = 120;

export type ExportVerdict = { ok: true; name: string; type: string } | { ok: false; reason: string };

/**
 * A safe file name: no directories, no control or format characters (bidi overrides could disguise
 * the extension), no characters Windows refuses, no leading dots, at most MAX_NAME characters.
 */
export function sanitiseName(file: string, extension: string): string {
  const base = file
    .replace(/^.*[\\/]/, "")
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}<>:"|?*\\/]/gu, "_")
    .replace(/\.[A-Za-z0-9]+$/, "")
    .replace(/^[\s.]+/, "")
    .replace(/[\s.]+$/, "");
  const stem = [...(base || "graph")].slice(0, MAX_NAME - extension.length - 1).join("");
  return `${stem}.${extension}`;
}

/**
 * Whether an export message from the frame may become a download. `gesture`: the page saw a user
 * activation that the frame holds focus for (see NetronFrame), i.e. the user just clicked in it.
 */
export function checkExport(message: { file?: unknown; blob?: unknown }, gesture: boolean): ExportVerdict {
  if (!gesture) return { ok: false, reason: "no click in the viewer came just before it" };
  if (typeof message.file !== "string" || !(message.blob instanceof Blob)) return { ok: false, reason: "not a file" };
  const extension = message.file.match(/\.([A-Za-z0-9]+)$/)?.[1]?.toLowerCase() ?? "";
  const type = EXPORT_TYPES[extension];
  if (!type) return { ok: false, reason: `only .png and .svg images are exported, not '${message.file.slice(-20)}'` };
  if (!ACCEPTED_TYPES[extension].includes(message.blob.type))
    return { ok: false, reason: `a .${extension} file must be ${type}, not '${message.blob.type}'` };
  // The download carries the canonical type, whatever alias the frame used.
  return { ok: true, name: sanitiseName(message.file, extension), type };
}

/** Downloads `blob` as `verdict.name` (an accepted export) from this page. */
export function saveFile(verdict: { name: string; type: string }, blob: Blob): void {
  const link = document.createElement("a");
  link.download = verdict.name;
  link.href = URL.createObjectURL(new Blob([blob], { type: verdict.type }));
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}
