// Inside the Model Explorer frame, before the app's scripts (frame-shim.ts): the guard that lets the
// app hear only its parent page and itself.

/** What the guard leaves the rest of the shim. */
export interface MessageGuard {
  /** Whether a message event comes from the parent (at its origin) or from this frame; true for any other event. */
  trusted(event: Event): boolean;
  /** The browser's own addEventListener, unguarded (for listeners that are not the app's). */
  realAdd: typeof EventTarget.prototype.addEventListener;
}

/**
 * Wraps every "message" listener added to this window, and onmessage, so that only trusted messages
 * reach it. The app acts on postMessage commands (select a node, load graphs, load node data) from any
 * window, and any frame on the page can reach this one (window.top.frames): the app hears only its
 * parent's messages, and its own (it may post to itself). Runs before any of the app's scripts.
 */
export function guardMessages(parentOrigin: string): MessageGuard {
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
  guardOnmessage(trusted);
  return { trusted, realAdd };
}

/** The same guard for a handler the app sets as window.onmessage. */
function guardOnmessage(trusted: (event: Event) => boolean): void {
  const onmessage = Object.getOwnPropertyDescriptor(window, "onmessage");
  if (!onmessage?.set || !onmessage.get) return;
  let assigned: ((event: MessageEvent) => unknown) | null = null;
  Object.defineProperty(window, "onmessage", {
    configurable: true,
    enumerable: onmessage.enumerable,
    get: () => assigned,
    set(value: ((event: MessageEvent) => unknown) | null) {
      assigned = typeof value === "function" ? value : null;
      onmessage.set!.call(window, assigned ? (event: MessageEvent) => (trusted(event) ? assigned!.call(window, event) : undefined) : null);
    },
  });
}
