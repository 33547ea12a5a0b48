// What the parent page accepts from the sandboxed Netron frame as a download (pure, unit-tested in
// tests/js/netron/export.test.ts). The frame cannot download itself; whatever it posts is only a
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
  if (!gesture) return { ok: false, reason: "no click in the viewer started it" };
  if (typeof message.file !== "string" || !(message.blob instanceof Blob)) return { ok: false, reason: "not a file" };
  const extension = message.file.match(/\.([A-Za-z0-9]+)$/)?.[1]?.toLowerCase() ?? "";
  const type = EXPORT_TYPES[extension];
  if (!type) return { ok: false, reason: `only .png and .svg images are exported, not '${message.file.slice(-20)}'` };
  if (!ACCEPTED_TYPES[extension].includes(message.blob.type))
    return { ok: false, reason: `a .${extension} file must be ${type}, not '${message.blob.type}'` };
  // The download carries the canonical type, whatever alias the frame used.
  return { ok: true, name: sanitiseName(message.file, extension), type };
}

/** How long an export the user started in Netron's menu may take to arrive (a big graph's PNG is slow). */
export const MENU_EXPORT_WAIT_MS = 120_000;

/**
 * The one export the user started in Netron's menu: granted when the frame says an export started
 * while the page sees the click (user activation lasts a few seconds; a PNG may take longer), used
 * up by the image of that file arriving within MENU_EXPORT_WAIT_MS.
 */
export class MenuExportPermit {
  private granted: { file: string; until: number } | null = null;

  grant(file: string, now: number): void {
    this.granted = { file, until: now + MENU_EXPORT_WAIT_MS };
  }

  /** Whether the image of `file` is the export granted (a permit serves one image, then is gone). */
  take(file: unknown, now: number): boolean {
    const granted = this.granted;
    this.granted = null; // whatever arrives next uses the permit up: one click, one download at most
    return granted !== null && granted.file === file && now <= granted.until;
  }
}

/** Downloads `blob` as `verdict.name` (an accepted export) from this page. */
export function saveFile(verdict: { name: string; type: string }, blob: Blob): void {
  const link = document.createElement("a");
  link.download = verdict.name;
  link.href = URL.createObjectURL(new Blob([blob], { type: verdict.type }));
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}
