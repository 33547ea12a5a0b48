// Builds the srcdoc document that runs the Model Explorer web app from blob: URLs (pure functions,
// unit-tested in tests/js).
import { cspHash } from "../shared/csp";
import type { ShimConfig } from "./protocol";

/**
 * Content-Security-Policy of the frame: everything it loads comes from blob: URLs made by the page.
 * The one inline script is the shim's (`scriptHash`, the hash of its text); the app's own `<style>`s
 * are blob: stylesheets (frame/frame-boot.ts); Angular's component styles, made at run time, carry the
 * document's `styleNonce` (it reads it from `ngCspNonce` on <app-root>). Style *attributes* stay
 * allowed ('unsafe-inline' for style-src-attr only, CSP3): the app's templates and its libraries set
 * them at run time (`style="..."` through setAttribute), and an attribute can only restyle, not run.
 */
export function frameCsp(scriptHash: string, styleNonce: string): string {
  if (!/^'sha256-[A-Za-z0-9+/]+=*'$/.test(scriptHash)) throw new Error("A CSP hash source is 'sha256-<base64>'.");
  if (!/^[A-Za-z0-9+/=_-]+$/.test(styleNonce)) throw new Error("A CSP nonce is base64 text.");
  return [
    "default-src 'none'",
    `script-src blob: ${scriptHash}`,
    `style-src blob: 'nonce-${styleNonce}'`,
    "style-src-attr 'unsafe-inline'",
    "img-src blob: data:",
    "font-src blob: data:",
    "worker-src blob:",
    "connect-src blob: data:",
  ].join("; ");
}

/** The app's builtin JSON adapter: without it in get_extensions nothing ever loads. */
export const JSON_ADAPTER = {
  fileExts: ["json"],
  type: "adapter",
  id: "builtin_json",
  name: "JSON adapter",
  description: "",
};

/** Model Explorer's virtual ?data= query, in the schema its own Python server writes. */
export interface StartQuery {
  /** One entry per pane; "graphs://<label>/<index>" is answered by load_graphs_json?graph_index=. */
  models: { url: string }[];
  nodeData?: string[];
  nodeDataTargets?: string[];
  uiState?: unknown;
  sync?: { mode: string };
}

export function encodeQuery(query: StartQuery): string {
  return `data=${encodeURIComponent(JSON.stringify(query))}`;
}

/**
 * Rewrites @font-face rules: faces served from /static_files/ point at their blob URL when the page
 * has the file, and are dropped otherwise; faces on Google's font servers are always dropped.
 */
export function rewriteFontFaces(css: string, fontUrls: Record<string, string>): string {
  return css.replace(/@font-face\s*\{[^}]*\}/g, (rule) => {
    const local = rule.match(/url\(\/?(static_files\/[^)]+)\)/);
    if (!local || !fontUrls[local[1]]) return "";
    return rule.replace(local[0], () => `url(${fontUrls[local[1]]})`);
  });
}

/** JSON for a <script> body: "<" escaped so no string can close the element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

export interface DocumentParts {
  /** The app's index.html text. */
  indexHtml: string;
  /** The stylesheets and entry scripts index.html loads: the frame adds them itself, from its own URLs. */
  entryNames: string[];
  shim: ShimConfig;
  /** Source of js/model-explorer/frame/frame-boot.ts (the shim and the boot), bundled as a classic script. */
  shimSource: string;
  /** The nonce Angular's run-time styles carry (a fresh one per document: makeNonce). */
  styleNonce: string;
}

const INLINE_STYLE = /<style>([\s\S]*?)<\/style>/g;

/**
 * The widget's own rules for the app, after its styles: a frame in a cell is narrower than the page
 * the app is made for, and its title bar then wrapped "Add per-node data" onto three lines over the
 * graph's toolbar and pushed its last buttons out of the frame. In a narrow frame the title keeps its
 * logo (the widget's header names the viewer) and the node data button its icon and tooltip; in a very
 * narrow one the graph selector drops the collection's name (its list still names it). Its
 * links to the app's documentation and bug tracker go nowhere from a sandboxed frame (no pop-ups, no
 * network): they are not shown.
 * "!important": Angular adds an attribute to each part of its components' selectors, which outweigh any
 * of ours.
 */
export const WIDGET_CSS = `
title-bar .icons-container { display: none !important; }
@media (max-width: 820px) {
  title-bar .title { font-size: 0 !important; }
  node-data-provider-dropdown .label { display: none !important; }
  title-bar .btns-container { flex-shrink: 0 !important; }
  title-bar .btns-container-external { display: flex !important; }
  title-bar graph-selector { min-width: 0 !important; }
}
@media (max-width: 560px) {
  title-bar graph-selector .collection-label { display: none !important; }
}
`;

/** index.html's own <style> texts, in order: the frame adds them once it has minted the fonts' URLs. */
export function inlineStyles(indexHtml: string): string[] {
  return [...indexHtml.replace(/<!--[\s\S]*?-->/g, "").matchAll(INLINE_STYLE)].map((match) => match[1]);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The srcdoc HTML: the app's index.html with the shim first and without anything it would load by
 * URL (entries, styles, icons, preconnects): the frame receives those files by message and adds
 * them from blob: URLs it mints itself (a sandboxed frame cannot load the page's).
 */
export function buildDocument(parts: DocumentParts): string {
  const script = `window.__TLW_ME__=${scriptJson(parts.shim)};\n${parts.shimSource.replace(/<\/script/gi, "<\\/script")}`;
  const head =
    `<base href="about:srcdoc">` +
    `<meta http-equiv="Content-Security-Policy" content="${frameCsp(cspHash(script), parts.styleNonce)}">` +
    `<script>${script}</script>`;
  let html = parts.indexHtml
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<link rel="preconnect"[^>]*>/g, "")
    .replace(/<link rel="(shortcut )?icon"[^>]*>/g, "")
    .replace(INLINE_STYLE, "");
  if (!html.includes('<base href="/">')) throw new Error('Model Explorer index.html has no <base href="/">: unsupported build');
  // A function, not a string: a replacement string reads "$&", "$1"... in the shim's minified code as patterns.
  html = html.replace('<base href="/">', () => head);
  for (const name of parts.entryNames) {
    const url = escapeRegExp(name);
    const tags = new RegExp(`<script[^>]*\\ssrc="${url}"[^>]*>\\s*</script>|<link[^>]*\\shref="${url}"[^>]*>`, "g");
    if (!tags.test(html)) throw new Error(`Model Explorer index.html does not reference ${name}`);
    html = html.replace(tags, "");
  }
  if (!/<app-root>/.test(html)) throw new Error("Model Explorer index.html has no <app-root>: unsupported build");
  html = html.replace("<app-root>", () => `<app-root ngCspNonce="${parts.styleNonce}">`);
  return html.replace(/<noscript>\s*<\/noscript>/g, "");
}
