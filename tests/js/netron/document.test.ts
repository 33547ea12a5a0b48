import { describe, expect, it } from "vitest";
import { buildFrameDocument, importMap, netronCsp, relativeImports, rewriteModule, scriptText } from "../../../js/netron/document";

// Shaped like netron 9.3's view.js / worker.js: static, dynamic and re-export forms, both quotes.
const VIEW = `
import * as base from './base.js';
import * as grapher from "./grapher.js";
export { Archive } from './zip.js';
const load = async () => {
    const zip = await import('./zip.js');
    const json = await import( "./json.js" );
    const fs = await import('fs');
    return [zip, json, fs, './not-an-import.js', import.meta.url];
};
import './side-effect.js';
`;

const INDEX = `<!DOCTYPE html>
<html lang="en">
<head>
<meta http-equiv="Content-Security-Policy" content="script-src 'self'; frame-src 'none'">
<meta name="version" content="9.3.3">
<link rel="stylesheet" type="text/css" href="grapher.css">
<script type="text/javascript" src="index.js"></script>
<style>
body { margin: 0; }
</style>
</head>
<body class="welcome spinner">
<div id="target" class="target"></div>
<a class="logo-github" href="https://github.com/lutzroeder/netron">GitHub</a>
<a href="//www.lutzroeder.com">site</a>
<a id="sidebar-closebutton" href="javascript:void(0)">&times;</a>
<script>window.analytics = true;</script>
</body>
</html>`;

describe("rewriteModule", () => {
  it("rewrites every relative import form to a bare netron/ specifier", () => {
    const out = rewriteModule(VIEW);
    expect(out).toContain("import * as base from 'netron/base.js';");
    expect(out).toContain('import * as grapher from "netron/grapher.js";');
    expect(out).toContain("export { Archive } from 'netron/zip.js';");
    expect(out).toContain("await import('netron/zip.js')");
    expect(out).toContain('await import( "netron/json.js" )');
    expect(out).toContain("import 'netron/side-effect.js';");
    expect(out).not.toMatch(/['"]\.\/[a-z-]+\.js['"]\s*\)?;/);
  });

  it("leaves bare specifiers, strings and import.meta alone", () => {
    const out = rewriteModule(VIEW);
    expect(out).toContain("await import('fs')");
    expect(out).toContain("'./not-an-import.js'");
    expect(out).toContain("import.meta.url");
  });

  it("is idempotent and order-independent", () => {
    const once = rewriteModule(VIEW);
    expect(rewriteModule(once)).toBe(once);
  });

  it("takes a resolver, e.g. blob: URLs for a worker (no import maps in workers)", () => {
    const worker = "import('./dagre.js');\nconst dagre = await import('./dagre.js');";
    const out = rewriteModule(worker, (file) => `blob:null/${file}`);
    expect(out).toBe("import('blob:null/dagre.js');\nconst dagre = await import('blob:null/dagre.js');");
  });

  it("finds the relative imports it rewrites", () => {
    expect(relativeImports(VIEW)).toEqual(["base.js", "grapher.js", "zip.js", "zip.js", "json.js", "side-effect.js"]);
  });
});

describe("importMap", () => {
  it("maps netron/<file> to the minted URL of each file", () => {
    const map = importMap({ "view.js": "blob:null/1", "base.js": "blob:null/2" });
    expect(map).toEqual({ imports: { "netron/view.js": "blob:null/1", "netron/base.js": "blob:null/2" } });
  });
});

describe("netronCsp", () => {
  it("allows only the nonce's inline script and blob: scripts, and no network at all", () => {
    expect(netronCsp("abc+/=")).toBe(
      "default-src 'none'; script-src blob: 'nonce-abc+/='; style-src 'unsafe-inline'; img-src data: blob:; worker-src blob:; connect-src 'none'",
    );
    expect(netronCsp("abc")).not.toMatch(/https?:|\*|'self'/);
  });

  it("has no 'unsafe-inline' for scripts: a javascript: URL or an inline handler never runs", () => {
    const scriptSrc = netronCsp("abc")
      .split("; ")
      .find((directive) => directive.startsWith("script-src"));
    expect(scriptSrc).not.toContain("unsafe-inline");
  });

  it("refuses a nonce that could break out of the policy", () => {
    expect(() => netronCsp("x'; script-src *")).toThrow(/base64/);
  });
});

describe("buildFrameDocument", () => {
  const html = buildFrameDocument({
    indexHtml: INDEX,
    grapherCss: ".node { fill: red; }",
    hostSource: "console.log('</script><script>alert(1)</script>');",
    extraCss: ".logo { display: none; }",
    nonce: "bm9uY2U=",
    config: { parentOrigin: "http://127.0.0.1:8888</script>" },
  });

  it("puts the strict CSP first in the head, and only that CSP", () => {
    const head = html.slice(0, html.indexOf("</head>"));
    expect(head).toContain(`<meta http-equiv="Content-Security-Policy" content="${netronCsp("bm9uY2U=")}">`);
    expect(html.match(/Content-Security-Policy/g)).toHaveLength(1);
    expect(head.indexOf("Content-Security-Policy")).toBeLessThan(head.indexOf("<style>"));
  });

  it("inlines grapher.css, index.html's style and the widget CSS", () => {
    expect(html).toContain("<style>.node { fill: red; }</style>");
    expect(html).toContain("body { margin: 0; }");
    expect(html).toContain("<style>.logo { display: none; }</style>");
  });

  it("keeps Netron's body and its class, drops its scripts, links and stylesheet link", () => {
    expect(html).toContain('<body class="welcome spinner">');
    expect(html).toContain('<div id="target" class="target"></div>');
    expect(html).not.toContain("index.js");
    expect(html).not.toContain("window.analytics");
    expect(html).not.toContain('href="grapher.css"');
    expect(html).not.toMatch(/href="(https?:)?\/\//);
    expect(html).toContain('href="javascript:void(0)"');
  });

  it("runs the host with the nonce and its config as the last element of the body, escaped so it cannot close its script", () => {
    const body = html.slice(html.indexOf("<body"));
    expect(body).toContain('<script nonce="bm9uY2U=">window.__TLW_NETRON__={"parentOrigin":"http://127.0.0.1:8888<\\/script>"};');
    expect(body.trimEnd().endsWith("</script>\n</body>\n</html>")).toBe(true);
    expect(html).toContain("<\\/script><script>alert(1)<\\/script>");
    expect(html.match(/<\/script/gi)).toHaveLength(1); // only the element's own end tag
  });

  it("refuses an index.html without a style or body", () => {
    const parts = { grapherCss: "", hostSource: "", nonce: "n", config: { parentOrigin: "null" } };
    expect(() => buildFrameDocument({ indexHtml: "<html></html>", ...parts })).toThrow(/unsupported netron build/);
  });
});

describe("scriptText", () => {
  it("escapes closing tags case-insensitively", () => {
    expect(scriptText("a</SCRIPT>b")).toBe("a<\\/SCRIPT>b");
  });
});
