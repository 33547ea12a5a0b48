// Viewer assets, once per page: the first widget that needs a bundle asks the kernel for it; every
// later widget on the page (and a re-rendered one) gets the same in-flight or finished promise.
// The cache lives on globalThis because each widget may load its own copy of this module.
import { gunzip } from "./bytes";
import type { KernelChannel } from "./channel";

export interface AssetBundle {
  key: string;
  files: Map<string, Uint8Array>;
  /** Bytes that crossed the widget channel for this bundle (compressed). */
  wireBytes: number;
}

interface AssetsReply {
  key: string;
  names: string[];
  encoding: "gzip";
}

type Cache = Map<string, Promise<AssetBundle>>;

function pageCache(): Cache {
  const holder = globalThis as { __torchlensWidgetsAssets?: Cache };
  holder.__torchlensWidgetsAssets ??= new Map();
  return holder.__torchlensWidgetsAssets;
}

/** Counters the end-to-end tests and benchmarks read: how many bundles crossed the channel. */
export function assetTransfers(): { requests: number; bytes: number } {
  const holder = globalThis as { __torchlensWidgetsTransfers?: { requests: number; bytes: number } };
  holder.__torchlensWidgetsTransfers ??= { requests: 0, bytes: 0 };
  return holder.__torchlensWidgetsTransfers;
}

async function download(channel: KernelChannel, viewer: string): Promise<AssetBundle> {
  const { result, buffers } = await channel.request<AssetsReply>("assets", { viewer });
  const files = new Map<string, Uint8Array>();
  let wireBytes = 0;
  await Promise.all(
    result.names.map(async (name, i) => {
      wireBytes += buffers[i].byteLength;
      files.set(name, await gunzip(buffers[i]));
    }),
  );
  const counters = assetTransfers();
  counters.requests += 1;
  counters.bytes += wireBytes;
  return { key: result.key, files, wireBytes };
}

export function getAssets(key: string, viewer: string, channel: KernelChannel): Promise<AssetBundle> {
  const cache = pageCache();
  let bundle = cache.get(key);
  if (!bundle) {
    bundle = download(channel, viewer);
    cache.set(key, bundle);
    // A failed transfer must not poison the page: the next widget asks again.
    bundle.catch(() => cache.delete(key));
  }
  return bundle;
}

/** Blob URLs made from a bundle's files, also once per page (they live as long as the page). */
const MIME: Record<string, string> = {
  js: "text/javascript",
  css: "text/css",
  png: "image/png",
  json: "application/json",
  woff2: "font/woff2",
  html: "text/html",
};

export function mimeOf(name: string): string {
  return MIME[name.split(".").pop() ?? ""] ?? "application/octet-stream";
}

export function blobUrl(data: Uint8Array | string, type: string): string {
  return URL.createObjectURL(new Blob([data as BlobPart], { type }));
}
