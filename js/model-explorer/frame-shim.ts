// Runs INSIDE the Model Explorer frame as its first, classic inline script, before the app's module
// scripts. It lets the unmodified app run from blob: URLs in a srcdoc document, answers the app's
// server API from the parent page, and keeps the app off the network and off the page's history.
import {
  SHIM_CONTEXT_LOST,
  SHIM_ESCAPE,
  SHIM_FAILED,
  SHIM_FETCH,
  SHIM_FETCH_REPLY,
  SHIM_FIT,
  SHIM_IMAGE,
  SHIM_IMAGE_REPLY,
  SHIM_RENDERED,
  type ShimConfig,
  type ShimFetchReply,
} from "./protocol";
import { forwardEscape, keepFocusWithUser, nextPaint } from "../frame-manners";

declare global {
  interface Window {
    __TLW_ME__: ShimConfig;
    modelExplorer?: Record<string, unknown>;
  }
}

/** Whether a canvas shows anything but one colour (read small: this runs until the graph is painted). */
function holdsAPicture(canvas: HTMLCanvasElement): boolean {
  const probe = document.createElement("canvas");
  probe.width = probe.height = 64;
  const context = probe.getContext("2d", { willReadFrequently: true });
  if (!context) return true; // nothing to read it with: the canvas's existence is all there is
  context.drawImage(canvas, 0, 0, probe.width, probe.height);
  const pixels = context.getImageData(0, 0, probe.width, probe.height).data;
  for (let i = 4; i < pixels.length; i += 4) {
    if (pixels[i] !== pixels[0] || pixels[i + 1] !== pixels[1] || pixels[i + 2] !== pixels[2] || pixels[i + 3] !== pixels[3]) return true;
  }
  return false;
}

(() => {
  keepFocusWithUser(); // before the app: it focuses its controls as it starts
  const config = window.__TLW_ME__;
  const ASSET_BASE = "tlw-asset:";
  const assetUrl = (url: unknown): string | undefined => {
    if (typeof url !== "string") return undefined;
    const name = url.startsWith(ASSET_BASE) ? url.slice(ASSET_BASE.length).replace(/^\/+/, "") : url;
    return Object.hasOwn(config.urls, name) ? config.urls[name] : undefined;
  };
  // Only to the parent page's origin (written into this document by the parent: this sandboxed frame's
  // own origin is opaque). A page with an opaque origin (a saved file opened from disk) cannot be
  // named: "*" there, and the source check alone.
  const parentOrigin = config.parentOrigin;
  const post = (message: Record<string, unknown>) => window.parent.postMessage(message, parentOrigin === "null" ? "*" : parentOrigin);

  // The app acts on postMessage commands (select a node, load graphs, load node data) from any
  // window. Any frame on the page can reach this one (window.top.frames), so the app hears only its
  // parent's messages, and its own (it may post to itself). Every "message" listener the app adds to
  // this window, or sets as onmessage, is wrapped before any of the app's scripts run.
  const trusted = (event: Event): boolean => {
    if (!(event instanceof MessageEvent)) return true;
    if (event.source === window) return true;
    return event.source === window.parent && event.origin === parentOrigin;
  };
  const wrapped = new WeakMap<object, EventListener>();
  const guard = (listener: EventListenerOrEventListenerObject): EventListener => {
    let guarded = wrapped.get(listener);
    if (!guarded) {
      guarded = function (this: unknown, event: Event) {
        if (!trusted(event)) return;
        return typeof listener === "function" ? listener.call(this, event) : listener.handleEvent(event);
      };
      wrapped.set(listener, guarded);
    }
    return guarded;
  };
  const realAdd = EventTarget.prototype.addEventListener;
  const realRemove = EventTarget.prototype.removeEventListener;
  EventTarget.prototype.addEventListener = function (this: EventTarget, type: string, listener, options) {
    const filtered = this === window && type === "message" && listener ? guard(listener) : listener;
    return realAdd.call(this, type, filtered, options);
  };
  EventTarget.prototype.removeEventListener = function (this: EventTarget, type: string, listener, options) {
    const filtered = this === window && type === "message" && listener ? (wrapped.get(listener) ?? listener) : listener;
    return realRemove.call(this, type, filtered, options);
  };
  const onmessage = Object.getOwnPropertyDescriptor(window, "onmessage");
  if (onmessage?.set && onmessage.get) {
    let assigned: ((event: MessageEvent) => unknown) | null = null;
    Object.defineProperty(window, "onmessage", {
      configurable: true,
      enumerable: onmessage.enumerable,
      get: () => assigned,
      set(value: ((event: MessageEvent) => unknown) | null) {
        assigned = typeof value === "function" ? value : null;
        onmessage.set!.call(
          window,
          assigned ? (event: MessageEvent) => (trusted(event) ? assigned!.call(window, event) : undefined) : null,
        );
      },
    });
  }

  // Font and icon atlases load from `${assetFilesBaseUrl}/<name>`; any window.modelExplorer object
  // also makes the app skip its update check.
  window.modelExplorer = { ...(window.modelExplorer || {}), assetFilesBaseUrl: ASSET_BASE };

  // The app starts its layout worker with new URL("worker-X.js", import.meta.url); import.meta.url
  // is a blob: URL, which cannot be a base. Answer known asset names with their blob URL.
  const RealURL = window.URL;
  window.URL = new Proxy(RealURL, {
    construct(target, args: [string | URL, (string | URL)?]) {
      const mapped = assetUrl(args[0]);
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
      srcProperty.set!.call(this, assetUrl(String(value)) ?? value);
    },
  });

  // fetch: assets from blob URLs, the server API from the parent page, everything else refused
  // locally, so nothing in this frame ever reaches the network.
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
    const asset = assetUrl(url);
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

  // Storage in memory, per frame. This sandboxed frame has an opaque origin and no storage of its own
  // (see below); and the app's saved settings (its theme choice, search history) must not outlive the
  // widget: a stored theme would override the notebook's theme in every later widget.
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

  // A lost WebGL context leaves the renderer's canvas blank for good: Chromium drops the oldest
  // context past its per-page limit and every context on a GPU reset, and the app does not redraw.
  // Every WebGL context this frame makes (on a canvas or an OffscreenCanvas) is watched, and the
  // parent is told, which pauses the view and redraws it when it is on screen again.
  const watched = new WeakSet<object>();
  const watch = (target: HTMLCanvasElement | OffscreenCanvas, kind: unknown) => {
    if (typeof kind !== "string" || !/webgl/i.test(kind) || watched.has(target)) return;
    watched.add(target);
    realAdd.call(target, "webglcontextlost", () => {
      const shown = target instanceof HTMLCanvasElement && target.isConnected;
      post({ cmd: SHIM_CONTEXT_LOST, shown });
    });
  };
  const realGetContext = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, kind: string, ...rest: unknown[]) {
    // The graph's canvas keeps its last frame, so "save image" can read it whenever it is asked.
    if (/webgl/i.test(String(kind)) && this.classList.contains("main")) {
      rest[0] = { ...((rest[0] as object | undefined) ?? {}), preserveDrawingBuffer: true };
    }
    const context = (realGetContext as (...args: unknown[]) => unknown).call(this, kind, ...rest);
    if (context) watch(this, kind);
    return context;
  } as typeof HTMLCanvasElement.prototype.getContext;
  if (typeof OffscreenCanvas !== "undefined") {
    const realOffscreen = OffscreenCanvas.prototype.getContext;
    OffscreenCanvas.prototype.getContext = function (this: OffscreenCanvas, kind: string, ...rest: unknown[]) {
      const context = (realOffscreen as (...args: unknown[]) => unknown).call(this, kind, ...rest);
      if (context) watch(this, kind);
      return context;
    } as typeof OffscreenCanvas.prototype.getContext;
  }

  // The app's own side panel (NODE INFO, ATTRIBUTES; GRAPH INFO in a split pane) takes 370 px of
  // each pane and shows what the widget's inspector shows. Start it closed: its own hide toggle is
  // clicked once, as soon as a panel appears (before the graph's first fit), so the user's toggle
  // still opens it, and a panel the user opened stays open: after the user's first press on a toggle
  // nothing is closed any more (the app may render a panel element again after it, which was then
  // closed under the user's hand). The web app has no setting or query field for this (its config's
  // hideInfoPanel removes the panel for good).
  if (config.infoPanelClosed) {
    const closedOnce = new WeakSet<Element>();
    const closePanels = () => {
      for (const toggle of document.querySelectorAll<HTMLElement>("info-panel .hide-toggle")) {
        const panel = toggle.closest("info-panel");
        if (!panel || closedOnce.has(panel)) continue;
        closedOnce.add(panel);
        toggle.click();
      }
    };
    const closing = new MutationObserver(closePanels);
    closing.observe(document, { childList: true, subtree: true });
    const userToggled = (event: Event) => {
      const target = event.target instanceof Element ? event.target : null;
      if (!event.isTrusted || !target?.closest("info-panel .hide-toggle")) return;
      closing.disconnect();
      document.removeEventListener("pointerdown", userToggled, true);
    };
    document.addEventListener("pointerdown", userToggled, true);
  }

  // The widget's layout: fit the graph when the frame changes size for good (maximize, restore); a PNG of
  // the graph canvases (both panes of a diff, where they are on screen) for "save image"; Escape
  // reaches the page, which restores a maximized widget.
  const graphImage = async (): Promise<Blob> => {
    const canvases = [...document.querySelectorAll<HTMLCanvasElement>("webgl-renderer canvas.main")].filter(
      (canvas) => canvas.width > 0 && canvas.getBoundingClientRect().width > 0,
    );
    if (!canvases.length) throw new Error("no graph is drawn yet");
    const rects = canvases.map((canvas) => canvas.getBoundingClientRect());
    const left = Math.min(...rects.map((rect) => rect.left));
    const top = Math.min(...rects.map((rect) => rect.top));
    const scale = canvases[0].width / rects[0].width; // the device pixel ratio the app draws at
    const out = document.createElement("canvas");
    out.width = Math.round((Math.max(...rects.map((rect) => rect.right)) - left) * scale);
    out.height = Math.round((Math.max(...rects.map((rect) => rect.bottom)) - top) * scale);
    const context = out.getContext("2d")!;
    context.fillStyle = getComputedStyle(document.body).backgroundColor || "#fff";
    context.fillRect(0, 0, out.width, out.height);
    canvases.forEach((canvas, i) => {
      const rect = rects[i];
      context.drawImage(canvas, (rect.left - left) * scale, (rect.top - top) * scale, rect.width * scale, rect.height * scale);
    });
    return new Promise((resolve, reject) =>
      out.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("the browser made no PNG"))), "image/png"),
    );
  };
  window.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as { cmd?: string; id?: number } | undefined;
    if (event.source !== window.parent || !trusted(event) || !data) return;
    if (data.cmd === SHIM_FIT) {
      // The app's own fit: its space-key shortcut (the selected pane of a diff).
      document.dispatchEvent(new KeyboardEvent("keydown", { key: " ", code: "Space", bubbles: true }));
    } else if (data.cmd === SHIM_IMAGE) {
      graphImage().then(
        (blob) => post({ cmd: SHIM_IMAGE_REPLY, id: data.id, blob }),
        (error: unknown) => post({ cmd: SHIM_IMAGE_REPLY, id: data.id, blob: null, error: String(error) }),
      );
    }
  });
  forwardEscape(() => post({ cmd: SHIM_ESCAPE }));

  // Report when the graph is painted. "model-explorer-ready" comes seconds earlier, and the renderer's
  // canvas exists (sized, the "Processing graph..." spinner gone) before the browser has painted it:
  // a frame off screen runs no animation frame. So the graph counts as drawn once an animation frame
  // has run since and the canvas holds more than its background: never "ready" over a blank canvas.
  const started = performance.now();
  let checking = false;
  const poll = window.setInterval(() => {
    const canvas =
      document.querySelector<HTMLCanvasElement>("webgl-renderer canvas.main") ??
      document.querySelector<HTMLCanvasElement>("webgl-renderer canvas");
    if (checking || !canvas || canvas.width === 0 || document.querySelector("mat-spinner")) return;
    checking = true;
    void nextPaint().then(() => {
      checking = false;
      if (!canvas.isConnected || !holdsAPicture(canvas)) return;
      window.clearInterval(poll);
      post({ cmd: SHIM_RENDERED, ms: performance.now() - started });
    });
  }, 100);
  // An uncaught error of the layout worker reaches this window with the worker's URL: the graph will
  // never be drawn, so say so now instead of after the draw time-out.
  // (config.urls is filled in once the frame has its files: read it when an error comes.)
  const isWorkerUrl = (url: string) => Object.keys(config.urls).some((name) => name.startsWith("worker-") && config.urls[name] === url);
  window.addEventListener("error", (event) => {
    const fatal = isWorkerUrl(String(event.filename ?? ""));
    post({ cmd: SHIM_FAILED, message: String(event.message || event.error), fatal });
  });
  // The app's own error handler (Angular's) catches what its components throw and only logs it:
  // report those too, so a draw time-out names the error instead of guessing at WebGL.
  const realConsoleError = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    realConsoleError(...args);
    const text = args.map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : String(arg))).join(" ");
    post({ cmd: SHIM_FAILED, message: text.slice(0, 500), fatal: false });
  };
})();
