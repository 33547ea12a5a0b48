// Viewer assets, once per page: the first widget that needs a bundle asks the kernel for it by key;
// every later widget on the page (and a re-rendered one) gets the same in-flight or finished promise.
// The kernel answers the bundle named by the key (not whichever viewer is current), and the reply
// names its key: a reply for another key is an error and is never cached.
// The cache lives on globalThis because each widget may load its own copy of this module, under a
// key versioned by its shape (js/shared/page-globals.ts): another build's cache on the page is not ours.
import { gunzip } from "./bytes";
import { RequestError, type KernelChannel } from "./channel";
import { isRecord, pageGlobal } from "../shared/page-globals";
import { parseAssetsReply, type AssetFile, type AssetRole, type Viewer } from "./protocol";

export interface AssetBundle {
  key: string;
  viewer: Viewer;
  /** The viewer's version (the installed Python package's). */
  version: string;
  /** Every file's name and role, in the order the kernel sent them (load order within a role). */
  index: AssetFile[];
  files: Map<string, Uint8Array>;
  /** Bytes that crossed the widget channel for this bundle (compressed). */
  wireBytes: number;
}

/** The names of the bundle's files with `role`, in the kernel's order. */
export function filesWithRole(bundle: Pick<AssetBundle, "index">, role: AssetRole): string[] {
  return bundle.index.filter((file) => file.role === role).map((file) => file.name);
}

/** The bundle's one file with `role` (e.g. the page), as text; a missing one is an error with the remedy. */
export function textWithRole(bundle: AssetBundle, role: AssetRole): string {
  const [name] = filesWithRole(bundle, role);
  const data = name === undefined ? undefined : bundle.files.get(name);
  if (data === undefined) {
    throw new Error(`The ${bundle.viewer} bundle has no ${role} file. Reinstall the viewer's Python package (see the kernel's message).`);
  }
  return new TextDecoder().decode(data);
}

interface CacheEntry {
  promise: Promise<AssetBundle>;
  /** The channel of the view whose request fetches it; null once it settled (the cache keeps no view). */
  asker: KernelChannel | null;
}

type Cache = Map<string, CacheEntry>;

function pageCache(): Cache {
  return pageGlobal(
    "Assets",
    () => new Map(),
    (held): held is Cache => held instanceof Map,
  );
}

/**
 * An entry of this shape (anything else under a key is fetched again). Checked by shape, not by
 * class: every widget's copy of this module has its own KernelChannel class.
 */
function isCacheEntry(entry: unknown): entry is CacheEntry {
  if (!isRecord(entry)) return false;
  const asker = entry.asker;
  if (asker !== null && !(isRecord(asker) && typeof asker.request === "function")) return false;
  return typeof (entry.promise as Promise<unknown> | undefined)?.then === "function";
}

/**
 * How long a view waits for viewer files another view is fetching before it asks on its own channel:
 * that view's kernel may be another notebook's, busy with a long cell or gone, and its request's
 * deadline and messages are that view's, not this one's.
 */
export const FOREIGN_FETCH_WAIT_MS = 15_000;

type Transfers = { requests: number; bytes: number };

/** Counters the end-to-end tests and benchmarks read: how many bundles crossed the channel. */
export function assetTransfers(): Transfers {
  return pageGlobal(
    "Transfers",
    () => ({ requests: 0, bytes: 0 }),
    (held): held is Transfers => isRecord(held) && typeof held.requests === "number" && typeof held.bytes === "number",
  );
}

async function download(channel: KernelChannel, key: string): Promise<AssetBundle> {
  const reply = await channel.request("assets", { key });
  const buffers = reply.buffers;
  const result = parseAssetsReply(reply.result, buffers.length);
  // The page keeps a bundle under its key for good: a reply for another bundle must never be
  // stored there (it would break every later view of that viewer on the page).
  if (result.key !== key) {
    throw new RequestError(
      `The kernel answered the request for viewer assets ${key} with ${result.key || "no key"}; nothing was cached. Re-run the cell.`,
    );
  }
  const files = new Map<string, Uint8Array>();
  let wireBytes = 0;
  await Promise.all(
    result.files.map(async ({ name }, i) => {
      wireBytes += buffers[i].byteLength;
      files.set(name, await gunzip(buffers[i]));
    }),
  );
  const counters = assetTransfers();
  counters.requests += 1;
  counters.bytes += wireBytes;
  return { key: result.key, viewer: result.viewer, version: result.version, index: result.files, files, wireBytes };
}

/**
 * The bundle stored under `key`, asked of the kernel by the first view that needs it. A view that
 * finds another view's request in flight waits for it, but asks again on its own channel if that
 * request fails (its view closed, its kernel restarted) or has not answered within
 * FOREIGN_FETCH_WAIT_MS: this view's own request then has this view's deadline and messages.
 */
export function getAssets(key: string, channel: KernelChannel): Promise<AssetBundle> {
  if (!key) return Promise.reject(new RequestError("No viewer asset key yet: the kernel has not said which viewer to show."));
  const cache = pageCache();
  const held = cache.get(key);
  const entry = isCacheEntry(held) ? held : undefined;
  if (!entry) return fetchAndCache(key, channel);
  const { promise, asker } = entry;
  if (asker === null || asker === channel) return promise;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tooLong = new Promise<"too long">((resolve) => {
    timer = setTimeout(() => resolve("too long"), FOREIGN_FETCH_WAIT_MS);
  });
  return Promise.race([promise, tooLong])
    .then(
      (won) => (won === "too long" ? ownFetch(key, channel, entry) : won),
      () => ownFetch(key, channel, entry), // only the foreign request's failure: ours is reported as it is
    )
    .finally(() => clearTimeout(timer));
}

/** This view's own request for the bundle; cached if the page has none better meanwhile. */
function ownFetch(key: string, channel: KernelChannel, foreign: CacheEntry): Promise<AssetBundle> {
  const held = pageCache().get(key);
  // Another request took the foreign one's place meanwhile: getAssets() decides whose it is.
  return isCacheEntry(held) && held !== foreign ? getAssets(key, channel) : fetchAndCache(key, channel);
}

function fetchAndCache(key: string, channel: KernelChannel): Promise<AssetBundle> {
  const cache = pageCache();
  const promise = download(channel, key);
  const created: CacheEntry = { promise, asker: channel };
  cache.set(key, created);
  promise.then(
    () => {
      created.asker = null; // settled: the cache no longer holds the view that asked
    },
    () => {
      // A failed transfer must not poison the page: the next widget asks again.
      if (cache.get(key) === created) cache.delete(key);
    },
  );
  return promise;
}
