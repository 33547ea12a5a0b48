// Pure functions behind the Netron frame (unit-tested in tests/js/netron/document.test.ts):
// the module rewrite, the import map, and the frame document with its Content-Security-Policy.

/**
 * What the frame may do: run its own host script (the inline script carrying `nonce`) and the blob:
 * modules it mints, use inline styles and data:/blob: images, start a blob: layout worker. No network
 * at all (connect-src 'none', and every other fetch directive falls back to default-src 'none'). No
 * 'unsafe-inline' for scripts: a `javascript:` URL or an inline event handler never runs.
 */
export function netronCsp(nonce: string): string {
  if (!/^[A-Za-z0-9+/=_-]+$/.test(nonce)) throw new Error("A CSP nonce is base64 text.");
  return [
    "default-src 'none'",
    `script-src blob: 'nonce-${nonce}'`,
    "style-src 'unsafe-inline'",
    "img-src data: blob:",
    "worker-src blob:",
    "connect-src 'none'",
  ].join("; ");
}

/** A fresh CSP nonce (128 random bits, base64). */
export function makeNonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

/** What the host script reads before it starts (window.__TLW_NETRON__). */
export interface NetronFrameConfig {
  /** The parent page's origin ("null" for a page with an opaque origin, e.g. a file from disk). */
  parentOrigin: string;
}

/** Bare specifier prefix the import map resolves: `netron/view.js` -> blob: URL. */
export const MODULE_PREFIX = "netron/";

// `from './x.js'`, `import('./x.js')` and `import './x.js'`: the only relative specifiers Netron uses.
const RELATIVE_IMPORT = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])\.\/([A-Za-z0-9_.-]+\.js)\2/g;

/**
 * Rewrites a Netron module's relative imports. A `./x.js` specifier cannot be resolved against a
 * blob: base URL (not hierarchical), and Chromium then never consults the import map, so each one
 * becomes the bare `netron/x.js` (or whatever `resolve` returns, e.g. a blob: URL in a worker,
 * where import maps do not apply).
 */
export function rewriteModule(text: string, resolve: (file: string) => string = (file) => MODULE_PREFIX + file): string {
  return text.replace(
    RELATIVE_IMPORT,
    (_match, prefix: string, quote: string, file: string) => `${prefix}${quote}${resolve(file)}${quote}`,
  );
}

/** The files a module imports relatively, in order of appearance. */
export function relativeImports(text: string): string[] {
  return [...text.matchAll(RELATIVE_IMPORT)].map((match) => match[3]);
}

/** The import map that resolves every `netron/<file>` to the URL minted for that file. */
export function importMap(urls: Record<string, string>): { imports: Record<string, string> } {
  const imports: Record<string, string> = {};
  for (const [file, url] of Object.entries(urls)) imports[MODULE_PREFIX + file] = url;
  return { imports };
}

/** Text safe inside a <script> element: no `</script` can close it early. */
export function scriptText(source: string): string {
  return source.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
}

/** Text safe inside a <style> element. */
export function styleText(css: string): string {
  return css.replace(/<\/(style)/gi, "<\\/$1");
}

export interface FrameDocumentParts {
  /** Netron's index.html: its <style> and <body> are used, its scripts and links are not. */
  indexHtml: string;
  /** Netron's grapher.css (index.html links it; inlined here). */
  grapherCss: string;
  /** The in-frame host: js/netron/frame/frame-entry.ts bundled as a classic script. */
  hostSource: string;
  /** Extra CSS for the widget (applied after Netron's own). */
  extraCss?: string;
  /** The only inline script allowed to run carries this nonce (see netronCsp). */
  nonce: string;
  config: NetronFrameConfig;
}

/**
 * The frame document: CSP, Netron's styles and body, and the host script at the end of the body
 * (it posts "hello" and waits for the modules, so the body exists by the time they arrive).
 * Links off the page (the About and welcome pages point at GitHub) lose their href, so no click
 * can navigate the frame to the network.
 */
export function buildFrameDocument(parts: FrameDocumentParts): string {
  const style = parts.indexHtml.match(/<style>([\s\S]*?)<\/style>/)?.[1];
  const bodyMatch = parts.indexHtml.match(/<body([^>]*)>([\s\S]*)<\/body>/);
  if (style === undefined || !bodyMatch) throw new Error("Netron's index.html has no <style> or <body>: unsupported netron build");
  const body = bodyMatch[2].replace(/<script[\s\S]*?<\/script>/gi, "").replace(/\shref="(?:https?:)?\/\/[^"]*"/gi, "");
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${netronCsp(parts.nonce)}">`,
    "<title>Netron</title>",
    `<style>${styleText(parts.grapherCss)}</style>`,
    `<style>${styleText(style)}</style>`,
    parts.extraCss ? `<style>${styleText(parts.extraCss)}</style>` : "",
    "</head>",
    `<body${bodyMatch[1]}>`,
    body,
    `<script nonce="${parts.nonce}">window.__TLW_NETRON__=${scriptText(JSON.stringify(parts.config))};\n${scriptText(parts.hostSource)}</script>`,
    "</body>",
    "</html>",
  ].join("\n");
}
