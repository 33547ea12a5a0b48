// Bundles the widget frontend (js/widget.ts) into torchlens_widgets/static/widget.js.
//
//   node build.mjs            minified release build (what `pip install` runs)
//   node build.mjs --watch    unminified, with sourcemaps, rebuilt on change
//
// Code that runs INSIDE a viewer frame lives in a `frame/` folder: js/frame/ (both frames),
// js/model-explorer/frame/ and js/netron/frame/. The page reaches it only through a `frame:` import, which
// bundles that file, and whatever it imports, separately into an IIFE and gives it to the widget as text:
// `import bootSource from "frame:./frame/frame-boot.ts"` in js/model-explorer/bridge.ts (and
// "frame:./frame/frame-entry.ts" in js/netron/bridge.ts). What a frame imports from outside a frame/ folder
// (its viewer's protocol.ts and document.ts, js/shared/, js/kernel/protocol.ts) runs in both places;
// tests/js/import-graph.test.ts holds the rule.
// `import BUILD_ID from "build:id"` is a hash of the sources this bundle is built from.
import * as esbuild from "esbuild";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const watch = process.argv.includes("--watch");

/** Resolves `frame:<path>` imports to the IIFE source text of that file. */
const frameTextPlugin = {
  name: "frame-text",
  setup(build) {
    build.onResolve({ filter: /^frame:/ }, (args) => ({
      path: path.resolve(args.resolveDir, args.path.slice("frame:".length)),
      namespace: "frame-text",
    }));
    build.onLoad({ filter: /.*/, namespace: "frame-text" }, async (args) => {
      const result = await esbuild.build({
        entryPoints: [args.path],
        bundle: true,
        write: false,
        format: "iife",
        target: "es2022",
        minify: !watch,
        metafile: true,
      });
      return {
        contents: `export default ${JSON.stringify(result.outputFiles[0].text)};`,
        loader: "js",
        watchFiles: Object.keys(result.metafile.inputs).map((p) => path.resolve(p)),
      };
    });
  },
};

/** Every file and folder under `dir`, sorted (what the bundle is built from). */
function sourceTree(dir) {
  const files = [];
  const dirs = [dir];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = sourceTree(full);
      files.push(...inner.files);
      dirs.push(...inner.dirs);
    } else files.push(full);
  }
  return { files, dirs };
}

/**
 * Resolves `build:id` to a hash of every file under js/ (names and contents): two builds that differ
 * in any source have different ids (js/model-explorer/parked-app.ts takes only its own build's parked
 * frame). In --watch mode it is computed again whenever a source changes.
 */
const buildIdPlugin = {
  name: "build-id",
  setup(build) {
    build.onResolve({ filter: /^build:id$/ }, () => ({ path: "build:id", namespace: "build-id" }));
    build.onLoad({ filter: /.*/, namespace: "build-id" }, () => {
      const { files, dirs } = sourceTree("js");
      const hash = createHash("sha256");
      for (const file of files) hash.update(`${file}\0`).update(readFileSync(file)).update("\0");
      return {
        contents: `export default ${JSON.stringify(hash.digest("hex").slice(0, 16))};`,
        loader: "js",
        watchFiles: files.map((file) => path.resolve(file)),
        watchDirs: dirs.map((dir) => path.resolve(dir)),
      };
    });
  },
};

const options = {
  entryPoints: ["js/widget.ts"],
  outfile: "torchlens_widgets/static/widget.js",
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: !watch,
  sourcemap: watch ? "inline" : false,
  // RequireJS pages (VS Code, exported HTML) define an AMD `define`: a bundle that saw it would register
  // itself as an AMD module there instead of running as the ES module the widget loads.
  define: { "define.amd": "false" },
  plugins: [frameTextPlugin, buildIdPlugin],
  logLevel: "info",
};

if (watch) {
  const context = await esbuild.context(options);
  await context.watch();
} else {
  await esbuild.build(options);
}
