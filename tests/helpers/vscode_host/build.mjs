// Bundles the emulated VS Code host's two scripts (host.ts, webview.ts) into <out>/build/.
import { build } from "esbuild";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) throw new Error("usage: node build.mjs <out-dir>");
await build({
  entryPoints: [path.join(here, "host.ts"), path.join(here, "webview.ts")],
  bundle: true,
  format: "iife",
  target: "es2022",
  outdir: path.join(out, "build"),
  logLevel: "warning",
  nodePaths: [path.join(here, "..", "..", "..", "node_modules")],
  define: { "process.env.NODE_ENV": '"production"' },
});
