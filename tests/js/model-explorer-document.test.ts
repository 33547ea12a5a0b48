import { describe, expect, it } from "vitest";
import {
  type DocumentParts,
  buildDocument,
  encodeQuery,
  FRAME_CSP,
  inlineStyles,
  rewriteFontFaces,
  scriptJson,
} from "../../js/model-explorer/document";

const INDEX = `<!--
license
-->
<!doctype html>
<html lang="en"><head><link rel="preconnect" href="https://fonts.gstatic.com" crossorigin>
<meta charset="utf-8"><title>Model Explorer</title><base href="/">
<link rel="shortcut icon" type="image/svg+xml" href="/static_files/favicon.svg">
<style>@font-face{font-family:'Google Sans Text';src:url(https://fonts.gstatic.com/s/x.woff2) format('woff2');}</style>
<style>@font-face{font-family:Material Icons;src:url(/static_files/material_icon.woff2) format("woff2")}</style>
<link rel="stylesheet" href="styles-ABC123.css" media="print" onload="this.media='all'"><noscript><link rel="stylesheet" href="styles-ABC123.css"></noscript></head>
<body><app-root></app-root>
<script src="polyfills-POLY1.js" type="module"></script><script src="main-MAIN1.js" type="module"></script></body></html>`;

const parts = (): DocumentParts => ({
  indexHtml: INDEX,
  entryNames: ["styles-ABC123.css", "polyfills-POLY1.js", "main-MAIN1.js"],
  shim: { urls: {}, parentOrigin: "http://127.0.0.1:8888", query: "data=%7B%7D", extensions: [] },
  shimSource: "window.shimRan = true;",
});

describe("rewriteFontFaces", () => {
  it("points delivered faces at their blob URL and drops the rest", () => {
    const css =
      "a{}@font-face{font-family:A;src:url(/static_files/material_icon.woff2)}" +
      "@font-face{font-family:B;src:url(/static_files/other.woff2)}" +
      "@font-face{font-family:C;src:url(https://fonts.gstatic.com/c.woff2)}b{}";
    const out = rewriteFontFaces(css, { "static_files/material_icon.woff2": "blob:x/icons" });
    expect(out).toBe("a{}@font-face{font-family:A;src:url(blob:x/icons)}b{}");
  });
});

describe("buildDocument", () => {
  const html = buildDocument(parts());

  it("runs the shim first, with its config", () => {
    const shim = html.indexOf("window.shimRan = true;");
    const config = html.indexOf("window.__TLW_ME__=");
    expect(config).toBeGreaterThan(-1);
    expect(shim).toBeGreaterThan(config);
    expect(html.indexOf("<script")).toBe(html.lastIndexOf("<script")); // the only script
    expect(html).toContain('"parentOrigin":"http://127.0.0.1:8888"');
  });

  it("keeps the shim's code as it is, whatever it contains", () => {
    // Minified code can read like a replacement pattern ("x===$&&y"): it must land verbatim.
    const shimSource = "if(t.cmd===$&&ok)$1($`,$');";
    expect(buildDocument({ ...parts(), shimSource })).toContain(shimSource);
  });

  it("loads nothing by URL: the frame adds the entries and styles from its own blob: URLs", () => {
    for (const name of parts().entryNames) expect(html).not.toContain(name);
    expect(html).not.toContain("<noscript>");
    expect(html).not.toContain("<style>");
    expect(html).not.toContain("<link");
    expect(html.replace('"http://127.0.0.1:8888"', "")).not.toMatch(/https?:\/\//); // but the parent's origin
    expect(html).not.toContain("favicon");
    expect(html).toContain("<app-root></app-root>");
  });

  it("declares a CSP that allows only blob: and inline code and no connections out", () => {
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${FRAME_CSP}">`);
    expect(FRAME_CSP).toContain("default-src 'none'");
    expect(FRAME_CSP).toMatch(/connect-src blob: data:(;|$)/);
    expect(FRAME_CSP).not.toMatch(/https?:|\*/);
  });

  it("uses about:srcdoc as base so the app's router starts at its root", () => {
    expect(html).toContain('<base href="about:srcdoc">');
    expect(html).not.toContain('<base href="/">');
  });

  it("cannot be broken out of by a label in the config", () => {
    const hostile = parts();
    hostile.shim.query = encodeQuery({ models: [{ url: "graphs://</script><script>alert(1)</script>/0" }] });
    hostile.shim.extensions = [{ name: "</script><img src=x onerror=alert(1)>" }];
    const out = buildDocument(hostile);
    expect(out.match(/<\/script>/g)!.length).toBe(buildDocument(parts()).match(/<\/script>/g)!.length);
    expect(out).not.toContain("<img src=x");
  });

  it("refuses an index.html it does not understand", () => {
    expect(() => buildDocument({ ...parts(), indexHtml: INDEX.replace('<base href="/">', "") })).toThrow(/base href/);
    const missing = parts();
    missing.entryNames.push("main-OTHER.js");
    expect(() => buildDocument(missing)).toThrow(/main-OTHER\.js/);
  });
});

describe("inlineStyles", () => {
  it("gives index.html's own style texts, for the frame to add once it has the fonts", () => {
    const styles = inlineStyles(INDEX);
    expect(styles).toHaveLength(2);
    expect(rewriteFontFaces(styles[1], { "static_files/material_icon.woff2": "blob:x/icons" })).toContain("url(blob:x/icons)");
  });
});

describe("scriptJson and encodeQuery", () => {
  it("escapes < and line separators", () => {
    expect(scriptJson({ a: "</script>\u2028" })).toBe('{"a":"\\u003c/script>\\u2028"}');
  });
  it("encodes the start query the way the app's server does", () => {
    const query = encodeQuery({ models: [{ url: "graphs://m/0" }] });
    expect(query.startsWith("data=")).toBe(true);
    expect(JSON.parse(decodeURIComponent(query.slice(5)))).toEqual({ models: [{ url: "graphs://m/0" }] });
  });
});
