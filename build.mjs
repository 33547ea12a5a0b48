// Bundles the widget frontend (js/widget.ts) into torchlens_widgets/static/widget.js.
//
//   node build.mjs            minified release build (what `pip install` runs)
//   node build.mjs --watch    unminified, with sourcemaps, rebuilt on change
//
// Code that runs INSIDE a viewer frame (js/**/frame-*.ts) is bundled separately into an IIFE and
// imported by the widget as text: `import shim from "frame:./model-explorer/frame-shim.ts"`.
import * as esbuild from "esbuild";
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
  plugins: [frameTextPlugin],
  logLevel: "info",
};

if (watch) {
  const context = await esbuild.context(options);
  await context.watch();
} else {
  await esbuild.build(options);
}
