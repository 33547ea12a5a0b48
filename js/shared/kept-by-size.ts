// Values kept by key up to a total size, the least recently used dropped first: what the page keeps of
// the texts it unpacked (js/kernel/unpacked-texts.ts) and the frame of the app's colourings
// (js/model-explorer/frame/shim-coloured-files.ts), both under a key of their content.

export class KeptBySize<T> {
  private readonly entries = new Map<string, { value: T; size: number }>();
  private total = 0;

  constructor(private readonly limit: number) {}

  /** The value kept under `key`, now the most recently used; undefined when there is none. */
  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value`, of `size`, under `key` in place of what was there; one over the whole limit is not kept. */
  set(key: string, value: T, size: number): void {
    this.delete(key);
    if (size > this.limit) return;
    this.entries.set(key, { value, size });
    this.total += size;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.limit) break;
      this.entries.delete(oldest);
      this.total -= entry.size;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.size;
  }
}
