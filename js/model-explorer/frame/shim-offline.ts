// Inside the Model Explorer frame, before the app's scripts (frame-shim.ts): the app runs from blob:
// URLs in a srcdoc document, its server API is answered from the parent page, and nothing it does
// reaches the network, the browser's storage or the page's history.
import { SHIM_FETCH, SHIM_FETCH_REPLY, type ShimConfig, type ShimFetchReply, type ShimPost } from "../protocol";

/** The base of the app's asset URLs (its `assetFilesBaseUrl`). */
export const ASSET_BASE = "tlw-asset:";

/** The blob: URL of a known asset, named bare ("worker-X.js") or under ASSET_BASE; undefined otherwise. */
export function assetUrl(config: ShimConfig, url: unknown): string | undefined {
  if (typeof url !== "string") return undefined;
  const name = url.startsWith(ASSET_BASE) ? url.slice(ASSET_BASE.length).replace(/^\/+/, "") : url;
  return Object.hasOwn(config.urls, name) ? config.urls[name] : undefined;
}

/** Points the app's asset loads (atlases, icons, the layout worker) at the frame's blob: URLs. */
export function mapAssetUrls(config: ShimConfig): void {
  // Font and icon atlases load from `${assetFilesBaseUrl}/<name>`; any window.modelExplorer object
  // also makes the app skip its update check.
  window.modelExplorer = { ...(window.modelExplorer || {}), assetFilesBaseUrl: ASSET_BASE };

  // The app starts its layout worker with new URL("worker-X.js", import.meta.url); import.meta.url
  // is a blob: URL, which cannot be a base. Answer known asset names with their blob URL.
  const RealURL = window.URL;
  window.URL = new Proxy(RealURL, {
    construct(target, args: [string | URL, (string | URL)?]) {
      const mapped = assetUrl(config, args[0]);
      return mapped ? new target(mapped) : Reflect.construct(target, args);
    },
  });

  // three.js' ImageLoader sets img.src = "tlw-asset:/FontRegular.png".
  const srcProperty = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, "src")!;
  Object.defineProperty(HTMLImageElement.prototype, "src", {
    configurable: true,
    enumerable: srcProperty.enumerable,
    get: srcProperty.get,
    set(value: string) {
      srcProperty.set!.call(this, assetUrl(config, String(value)) ?? value);
    },
  });
}

/**
 * Replaces fetch: assets from blob URLs, the server API from the parent page (SHIM_FETCH, answered by
 * SHIM_FETCH_REPLY), everything else refused locally, so nothing in this frame ever reaches the network.
 * Also stubs the app's EventSource.
 */
export function answerFetch(config: ShimConfig, post: ShimPost): void {
  const parentOrigin = config.parentOrigin;
  const realFetch = window.fetch.bind(window);
  const jsonResponse = (value: unknown, status = 200) =>
    new Response(JSON.stringify(value), { status, headers: { "Content-Type": "application/json" } });
  let nextId = 0;
  const pending = new Map<number, (response: Response) => void>();
  window.addEventListener("message", (event: MessageEvent) => {
    const reply = event.data as ShimFetchReply | undefined;
    if (event.source !== window.parent || event.origin !== parentOrigin || !reply || reply.cmd !== SHIM_FETCH_REPLY) return;
    const resolve = pending.get(reply.id);
    if (!resolve) return;
    pending.delete(reply.id);
    resolve(new Response(reply.body, { status: reply.status, headers: { "Content-Type": "application/json" } }));
  });
  const askParent = (url: string) =>
    new Promise<Response>((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve);
      post({ cmd: SHIM_FETCH, id, url });
    });
  window.fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const asset = assetUrl(config, url);
    if (asset) return realFetch(asset);
    if (url.startsWith("blob:") || url.startsWith("data:")) return realFetch(input, init);
    const path = url.split("?")[0];
    if (path === "/api/v1/get_extensions") return Promise.resolve(jsonResponse(config.extensions));
    if (path === "/api/v1/check_new_version") return Promise.resolve(jsonResponse({}));
    if (/^\/(api|apipost)\/v1\//.test(path)) return askParent(url);
    return Promise.resolve(new Response(`not available offline: ${url}`, { status: 404 }));
  };

  // The app listens for server pushes on an EventSource; a relative URL in this document throws.
  window.EventSource = class extends EventTarget {
    readonly url: string;
    readonly readyState = 2;
    constructor(url: string | URL) {
      super();
      this.url = String(url);
    }
    close() {}
  } as unknown as typeof EventSource;
}

/**
 * Storage in memory, per frame. This sandboxed frame has an opaque origin and no storage of its own
 * (see below); and the app's saved settings (its theme choice, search history) must not outlive the
 * widget: a stored theme would override the notebook's theme in every later widget.
 */
export function keepStorageInMemory(): void {
  const memory = new WeakMap<Storage, Map<string, string>>();
  const store = (storage: Storage) => {
    let entries = memory.get(storage);
    if (!entries) {
      entries = new Map();
      memory.set(storage, entries);
    }
    return entries;
  };
  Object.assign(Storage.prototype, {
    getItem(this: Storage, key: string) {
      return store(this).get(String(key)) ?? null;
    },
    setItem(this: Storage, key: string, value: string) {
      store(this).set(String(key), String(value));
    },
    removeItem(this: Storage, key: string) {
      store(this).delete(String(key));
    },
    clear(this: Storage) {
      store(this).clear();
    },
    key(this: Storage, index: number) {
      return [...store(this).keys()][index] ?? null;
    },
  });
  Object.defineProperty(Storage.prototype, "length", {
    configurable: true,
    get(this: Storage) {
      return store(this).size;
    },
  });
  // Where the browser gives this frame no storage at all (a third-party frame with third-party
  // cookies blocked: Chromium's setting, incognito, VS Code's cross-site webview), reading
  // window.localStorage throws a SecurityError and the app never starts. Answer with a Storage of
  // our own; the methods above keep its entries in memory like any other.
  for (const name of ["localStorage", "sessionStorage"] as const) {
    try {
      void window[name];
    } catch {
      const memoryStorage = Object.create(Storage.prototype) as Storage;
      Object.defineProperty(window, name, { configurable: true, enumerable: true, get: () => memoryStorage });
    }
  }
}

/** Keeps the app's router state in the frame, off the page's history, and gives it its virtual query. */
export function keepHistoryInFrame(config: ShimConfig): void {
  // The router pushes ?data=... on every UI change. Keep the state, drop the URL: a srcdoc document
  // cannot change its URL, and entries would land in the notebook page's own session history.
  const realReplaceState = History.prototype.replaceState;
  History.prototype.pushState = function (state: unknown) {
    realReplaceState.call(this, state, "");
  };
  History.prototype.replaceState = function (state: unknown) {
    realReplaceState.call(this, state, "");
  };
  // The app's title runs history.back(): from a frame with no entries of its own that would take
  // the notebook page itself back.
  History.prototype.back = History.prototype.forward = History.prototype.go = () => {};

  // Every read of the query by the app is new URLSearchParams(location.search); a srcdoc document has
  // no query, so substitute the virtual one that carries the graph.
  const RealSearchParams = window.URLSearchParams;
  window.URLSearchParams = class extends RealSearchParams {
    constructor(init?: string[][] | Record<string, string> | string | URLSearchParams) {
      super(typeof init === "string" && init === location.search ? config.query : init);
    }
  };
}
