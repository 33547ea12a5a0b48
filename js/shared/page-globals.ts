// The few values this package keeps on globalThis, shared by every copy of its module on the page
// (each widget may load its own). A page can run two builds at once: a second kernel environment, or
// a saved notebook whose widget state carries an older build's `_esm`. So each value lives under a
// key that names its shape's version, `__torchlensWidgets<Name>_v<shape>`: two builds whose values
// differ in shape never read each other's; builds of one shape share it. Shape 1 is the bare
// `__torchlensWidgets<Name>` older builds used: a value whose shape never changed stays there and is
// shared with them (the WebGL budget is the page's, whichever build counts). Bump the shape in
// PAGE_GLOBALS when a value's shape changes. A value under our key of a shape we do not recognise is
// ignored (this module copy keeps its own), never trusted: it cannot crash either build.

/** Each page-wide value and the version of its shape. */
export const PAGE_GLOBALS = {
  /** js/kernel/assets.ts: Map<key, { promise, asker }> (shape 1, before versioned keys: Map<key, Promise>). */
  Assets: 2,
  /** js/kernel/assets.ts: { requests, bytes } counters the tests and benchmarks read (unchanged since 0.1.0). */
  Transfers: 1,
  /** js/view/webgl-budget.ts: Set of the explorers holding WebGL contexts (unchanged since 0.1.0). */
  LiveFrames: 1,
  /** js/model-explorer/parked-app.ts: the parked Model Explorer frame's slot (it holds an AssetBundle, and since 3 the count of draws in flight). */
  ParkedApp: 3,
} as const;

export type PageGlobalName = keyof typeof PAGE_GLOBALS;

/** The globalThis key of `name` in this build. */
export function pageGlobalKey(name: PageGlobalName): string {
  const shape: number = PAGE_GLOBALS[name];
  return shape === 1 ? `__torchlensWidgets${name}` : `__torchlensWidgets${name}_v${shape}`;
}

/** What this module copy last read under each key and found valid (checked once, not on every read). */
const accepted = new Map<PageGlobalName, unknown>();
/** Values found under our key in a shape we do not know, kept per module copy instead. */
const ownCopies = new Map<PageGlobalName, unknown>();

/**
 * The page's value `name`, made by `make` if the page has none. `valid` checks what the page holds:
 * a value it refuses is left alone (it belongs to someone else) and this module copy uses its own.
 */
export function pageGlobal<T>(name: PageGlobalName, make: () => T, valid: (held: unknown) => held is T): T {
  const holder = globalThis as Record<string, unknown>;
  const key = pageGlobalKey(name);
  const held = holder[key];
  if (held !== undefined && held === accepted.get(name)) return held as T;
  if (held === undefined) {
    const made = make();
    holder[key] = made;
    accepted.set(name, made);
    return made;
  }
  if (valid(held)) {
    accepted.set(name, held);
    return held;
  }
  if (!ownCopies.has(name)) {
    console.warn(`torchlens-widgets: globalThis.${key} is not this build's; this widget keeps its own.`);
    ownCopies.set(name, make());
  }
  return ownCopies.get(name) as T;
}

/** True for a plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
