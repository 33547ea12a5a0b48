import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  type DocumentParts,
  buildDocument,
  encodeQuery,
  frameCsp,
  inlineStyles,
  rewriteFontFaces,
  scriptJson,
} from "../../../js/model-explorer/document";

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
  styleNonce: "c3R5bGVOb25jZTEyMzQ=",
});

/** The CSP the document declares, directive -> its sources. */
function declaredCsp(html: string): Map<string, string> {
  const policy = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/)?.[1] ?? "";
  return new Map(policy.split("; ").map((directive) => [directive.split(" ")[0], directive.slice(directive.indexOf(" ") + 1)]));
}

/** The text of each inline <script> in `html`, and its sha256 as a CSP source (node's own hash). */
function inlineScripts(html: string): { text: string; hash: string }[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(([, text]) => ({
    text,
    hash: `'sha256-${createHash("sha256").update(text).digest("base64")}'`,
  }));
}

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
    expect(html).toContain("</app-root>");
  });

  it("declares a CSP that allows only blob: code, the shim's script by its hash, and no connections out", () => {
    const csp = declaredCsp(html);
    expect(csp.get("default-src")).toBe("'none'");
    expect(csp.get("connect-src")).toBe("blob: data:");
    const scripts = inlineScripts(html);
    expect(scripts).toHaveLength(1);
    expect(csp.get("script-src")).toBe(`blob: ${scripts[0].hash}`); // the hash of the script the frame really has
    expect([...csp.values()].join(" ")).not.toMatch(/https?:|\*/);
    // 'unsafe-inline' only for style attributes (set by the app at run time), never for scripts or <style>s.
    expect([...csp].filter(([, sources]) => sources.includes("'unsafe-inline'")).map(([name]) => name)).toEqual(["style-src-attr"]);
  });

  it("gives Angular the nonce its run-time styles carry, and the CSP allows only that nonce for <style>s", () => {
    expect(html).toContain(`<app-root ngCspNonce="${parts().styleNonce}"></app-root>`);
    expect(declaredCsp(html).get("style-src")).toBe(`blob: 'nonce-${parts().styleNonce}'`);
  });

  it("hashes the script as it is written, whatever the shim's code or config holds", () => {
    const shimSource = "if(x)y('</script>');";
    const other = buildDocument({ ...parts(), shimSource, shim: { ...parts().shim, parentOrigin: "https://ünï.example" } });
    const [script] = inlineScripts(other);
    expect(declaredCsp(other).get("script-src")).toBe(`blob: ${script.hash}`);
    expect(declaredCsp(other).get("script-src")).not.toBe(declaredCsp(html).get("script-src"));
  });

  it("refuses a hash or nonce that would change the policy's meaning", () => {
    expect(() => frameCsp("'unsafe-inline'", "abc")).toThrow();
    expect(() => frameCsp("'sha256-AAAA'", "a' 'unsafe-inline")).toThrow();
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
