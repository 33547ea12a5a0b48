// Inside the Model Explorer frame: the app's colouring of the node data files shown lately, kept by the
// key the page sends with each file (equal keys, equal text) and the graph they coloured. A file shown
// again (an overlay toggled back, a comparison's run scrubbed back) then skips the app's reading of the
// text and its colouring of every node: on the 10,000-op trace, 60-70 ms of the frame's thread.
import type { ModelGraph, NodeDataRun } from "./app-internals";
import { KeptBySize } from "../../shared/kept-by-size";

/** A file as the app read it for a graph, and its colouring of every node there (node id -> colours). */
export interface ColouredFile {
  data: NonNullable<NodeDataRun["nodeDataProviderData"]>;
  results: Record<string, unknown>;
}

interface Kept extends ColouredFile {
  graph: ModelGraph;
}

/** Kept: at most this many nodes' colours over every file (the oldest used go first). */
export const KEPT_NODES = 200_000;

export class ColouredFiles {
  private readonly kept: KeptBySize<Kept>;

  constructor(keptNodes = KEPT_NODES) {
    this.kept = new KeptBySize(keptNodes);
  }

  /** The colouring of the file `key` for `graph` (that very graph object: the app's colouring reads it), if kept. */
  get(graph: ModelGraph, key: string): ColouredFile | undefined {
    const id = keyFor(graph, key);
    const kept = id === null ? undefined : this.kept.get(id);
    if (id === null || !kept) return undefined;
    if (kept.graph !== graph) {
      this.kept.delete(id); // another graph of the same id (the frame shows a new one): dropped
      return undefined;
    }
    return kept;
  }

  /** Keeps `coloured` as the colouring of the file `key` for `graph` ("" keeps nothing). */
  keep(graph: ModelGraph, key: string, coloured: ColouredFile): void {
    const id = keyFor(graph, key);
    if (id !== null) this.kept.set(id, { ...coloured, graph }, Object.keys(coloured.results).length);
  }
}

function keyFor(graph: ModelGraph, key: string): string | null {
  return key ? JSON.stringify([graph.collectionLabel, graph.id, key]) : null;
}

/** The frame's kept colourings (one app per frame). */
export const colouredFiles = new ColouredFiles();
