// Inside the Netron frame: how it talks to the parent page (the widget). Messages go to the
// notebook's origin only, and only the parent window, at that origin, is heard.
import type { NetronFrameConfig } from "../document";

declare global {
  interface Window {
    __TLW_NETRON__?: NetronFrameConfig;
  }
}

// The parent's origin, written into this document by the parent. This frame's own origin is opaque,
// so the parent cannot name it; this side can. A parent with an opaque origin (a saved file opened
// from disk) serialises as "null", which no postMessage target can name: "*" there, and the source
// check alone.
const PARENT_ORIGIN = window.__TLW_NETRON__?.parentOrigin ?? "null";
const TARGET_ORIGIN = PARENT_ORIGIN === "null" ? "*" : PARENT_ORIGIN;

export const post = (message: { cmd: string; [key: string]: unknown }): void => window.parent.postMessage(message, TARGET_ORIGIN);

export const fromParent = (event: MessageEvent): boolean => event.source === window.parent && event.origin === PARENT_ORIGIN;
