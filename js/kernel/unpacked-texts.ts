// Texts unpacked from the kernel's gzip buffers, kept by the key the kernel sent with them (equal keys,
// equal bytes), so an overlay shown again on any view of the page is not unpacked again: on GPT-2-48 its
// node data is about 400 KB of JSON from 20-40 KB of gzip, unpacked in 4-29 ms on a busy page.
import { gunzipText } from "./bytes";
import { KeptBySize } from "../shared/kept-by-size";

/** Kept: at most this many characters over every text (the oldest used go first). */
export const KEPT_CHARS = 16 * 2 ** 20;

export class UnpackedTexts {
  private readonly texts: KeptBySize<string>;

  constructor(keptChars = KEPT_CHARS) {
    this.texts = new KeptBySize(keptChars);
  }

  /** The text `data` (gzip) holds; the one kept under `key` when there is one ("" keeps nothing). */
  async text(key: string, data: DataView | ArrayBuffer | Uint8Array): Promise<string> {
    const kept = key ? this.texts.get(key) : undefined;
    if (kept !== undefined) return kept;
    const text = await gunzipText(data);
    if (key) this.texts.set(key, text, text.length);
    return text;
  }
}

/** The page's texts (every view's: keys are of content, not of a widget). */
export const unpackedTexts = new UnpackedTexts();
