// Inside the Model Explorer frame: the app's colouring of the node data files shown lately, kept by the
// key the page sends with each file (equal keys, equal text) and the graph they coloured. A file shown
// again (an overlay toggled back, a comparison's run scrubbed back) then skips the app's reading of the
// text and its colouring of every node: on the 10,000-op trace, 60-70 ms of the frame's thread.
import type { ModelGraph, NodeDataRun } from "./app-internals";

/** A file as the app read it for a graph, and its colouring of every node there (node id -> colours). */
export interface ColouredFile {
  data: NonNullable<NodeDataRun["nodeDataProviderData"]>;
  results: Record<string, unknown>;
}

interface Kept extends ColouredFile {
  graph: ModelGraph;
  nodes: number;
}

/** Kept: at most this many nodes' colours over every file (the oldest used go first). */
export const KEPT_NODES = 200_000;

export class ColouredFiles {
  private readonly kept = new Map<string, Kept>();
  private nodes = 0;

  constructor(private readonly keptNodes = KEPT_NODES) {}

  /** The colouring of the file `key` for `graph` (that very graph object: the app's colouring reads it), if kept. */
  get(graph: ModelGraph, key: string): ColouredFile | undefined {
    const id = keyFor(graph, key);
    const kept = id === null ? undefined : this.kept.get(id);
    if (!id || !kept) return undefined;
    this.kept.delete(id); // used last: kept longest
    if (kept.graph !== graph) {
      this.nodes -= kept.nodes; // another graph of the same id (the frame shows a new one): dropped
      return undefined;
    }
    this.kept.set(id, kept);
    return kept;
  }

  /** Keeps `coloured` as the colouring of the file `key` for `graph` ("" keeps nothing). */
  keep(graph: ModelGraph, key: string, coloured: ColouredFile): void {
    const id = keyFor(graph, key);
    if (id === null) return;
    const nodes = Object.keys(coloured.results).length;
    const old = this.kept.get(id);
    if (old) {
      this.kept.delete(id);
      this.nodes -= old.nodes;
    }
    if (nodes > this.keptNodes) return;
    this.kept.set(id, { ...coloured, graph, nodes });
    this.nodes += nodes;
    for (const [oldest, dropped] of this.kept) {
      if (this.nodes <= this.keptNodes) break;
      this.kept.delete(oldest);
      this.nodes -= dropped.nodes;
    }
  }
}

function keyFor(graph: ModelGraph, key: string): string | null {
  return key ? JSON.stringify([graph.collectionLabel, graph.id, key]) : null;
}

/** The frame's kept colourings (one app per frame). */
export const colouredFiles = new ColouredFiles();
