// The browser code's modules import each other without a circle (type-only imports and re-exports
// included), as tests/test_import_graph.py holds for the Python package: each module can be read, and
// tested, from the bottom up. And the tree says where code runs: what is in a `frame/` folder runs inside
// a viewer frame, which the page reaches only through build.mjs's `frame:` imports, and frame code never
// imports the folders that run in the page only.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(__dirname, "../../js");
/** The folders of js/ whose code runs in the notebook page only, never inside a viewer frame. */
const PAGE_ONLY = ["view", "inspector", "memory", "comparing"];

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

// `import ... from "./x"`, `export ... from "./x"` and `import "./x"`: every relative specifier.
const SPECIFIER = /(?:^|\n)\s*(?:import|export)\b[^;"']*?["'](\.{1,2}\/[^"']+)["']/g;

/** The modules `path` imports, as paths of files in js/ (a specifier resolves to x.ts or x/index.ts). */
function importsOf(path: string, text: string, files: Set<string>): string[] {
  return [...text.matchAll(SPECIFIER)].flatMap(([, specifier]) => {
    const target = resolve(dirname(path), specifier);
    return [`${target}.ts`, join(target, "index.ts"), target].filter((file) => files.has(file)).slice(0, 1);
  });
}

/** One circle of imports, as module names from js/, or null where there is none. */
function findCircle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === "done") return null;
    if (state.get(node) === "open") return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const circle = visit(next);
      if (circle) return circle;
    }
    stack.pop();
    state.set(node, "done");
    return null;
  };
  for (const node of graph.keys()) {
    const circle = visit(node);
    if (circle) return circle;
  }
  return null;
}

describe("js/'s import graph", () => {
  it("has no circle", () => {
    const files = sources(ROOT);
    const known = new Set(files);
    const graph = new Map(files.map((file) => [file, importsOf(file, readFileSync(file, "utf8"), known)]));
    expect(graph.size).toBeGreaterThan(40); // it read the tree
    const circle = findCircle(graph)?.map((file) => relative(ROOT, file));
    expect(circle ?? null).toBeNull();
  });

  it("keeps frame code and page code apart", () => {
    const files = sources(ROOT);
    const known = new Set(files);
    const inFrame = (file: string) => relative(ROOT, file).split(sep).includes("frame");
    const pageOnly = (file: string) => PAGE_ONLY.includes(relative(ROOT, file).split(sep)[0]);
    const crossings = files.flatMap((file) =>
      importsOf(file, readFileSync(file, "utf8"), known)
        .filter((target) => (inFrame(file) ? pageOnly(target) : inFrame(target)))
        .map((target) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`),
    );
    expect(files.filter(inFrame).length).toBeGreaterThan(15); // it found the frames' code
    expect(crossings).toEqual([]);
  });

  it("finds a circle, through a type-only import or a re-export too", () => {
    const files = new Set(["/a.ts", "/b.ts", "/c.ts"]);
    const graph = new Map([
      ["/a.ts", importsOf("/a.ts", 'import type { B } from "./b";', files)],
      ["/b.ts", importsOf("/b.ts", 'export * from "./c";', files)],
      ["/c.ts", importsOf("/c.ts", 'import {\n  a,\n} from "./a";', files)],
    ]);
    expect(findCircle(graph)).toEqual(["/a.ts", "/b.ts", "/c.ts", "/a.ts"]);
    graph.set("/c.ts", []);
    expect(findCircle(graph)).toBeNull();
  });
});
