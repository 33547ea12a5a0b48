// A baseline's facts as Model Explorer node attributes. The kernel sends them beside the collection,
// not in it, so a baseline set or changed sends the graph on screen again: the frame sets them on the
// nodes drawn (shim-recolour.ts) instead of laying the graph out again. A first draw has them merged
// into the collection it loads.

/** Graph id -> node id -> attribute key -> value. */
export type NodeAttributes = Record<string, Record<string, Record<string, string>>>;

interface CollectionNode {
  id?: unknown;
  attrs?: { key: string; value: unknown }[];
}

/** The collection's JSON text with `attributes` on its nodes (replacing attributes of the same key). */
export function withNodeAttributes(graphJson: string, attributes: NodeAttributes): string {
  if (Object.keys(attributes).length === 0) return graphJson;
  const collection = JSON.parse(graphJson) as { graphs?: { id?: unknown; nodes?: CollectionNode[] }[] };
  for (const graph of collection.graphs ?? []) {
    const ofGraph = attributes[String(graph.id)];
    if (!ofGraph) continue;
    for (const node of graph.nodes ?? []) {
      const set = ofGraph[String(node.id)];
      if (set) node.attrs = mergedAttrs(node.attrs ?? [], set);
    }
  }
  return JSON.stringify(collection);
}

/** A collection node's attribute list with `set`'s keys replaced or added. */
export function mergedAttrs(attrs: { key: string; value: unknown }[], set: Record<string, string>) {
  return [...attrs.filter((attr) => !(attr.key in set)), ...Object.entries(set).map(([key, value]) => ({ key, value }))];
}

/**
 * What to set on the nodes drawn with `shown` to show `next` (the entries that differ), or null when
 * `next` drops an attribute `shown` set: the app's layout worker keeps a copy of the graph's
 * attributes that it only ever adds to, so a dropped one would come back at the next expand.
 */
export function attributeChanges(shown: NodeAttributes, next: NodeAttributes): NodeAttributes | null {
  for (const [graphId, nodes] of Object.entries(shown))
    for (const [nodeId, attrs] of Object.entries(nodes))
      for (const key of Object.keys(attrs)) if (next[graphId]?.[nodeId]?.[key] === undefined) return null;
  const changes: NodeAttributes = {};
  for (const [graphId, nodes] of Object.entries(next))
    for (const [nodeId, attrs] of Object.entries(nodes)) {
      const before = shown[graphId]?.[nodeId] ?? {};
      const changed = Object.entries(attrs).filter(([key, value]) => before[key] !== value);
      if (changed.length) ofGraph(changes, graphId)[nodeId] = Object.fromEntries(changed);
    }
  return changes;
}

/** The nodes of `graphId` in `attributes`, added if missing. */
function ofGraph(attributes: NodeAttributes, graphId: string): Record<string, Record<string, string>> {
  attributes[graphId] = attributes[graphId] ?? {};
  return attributes[graphId];
}

/** Checks a decoded attributes file: the frame trusts nothing it is sent. */
export function parseNodeAttributes(text: string): NodeAttributes {
  const value: unknown = JSON.parse(text);
  const object = (what: unknown): what is Record<string, unknown> => typeof what === "object" && what !== null && !Array.isArray(what);
  if (!object(value)) throw new Error("The kernel's node attributes are not an object. Re-run the cell.");
  const attributes: NodeAttributes = {};
  for (const [graphId, nodes] of Object.entries(value)) {
    if (!object(nodes)) continue;
    for (const [nodeId, attrs] of Object.entries(nodes)) {
      if (!object(attrs)) continue;
      const strings = Object.entries(attrs).filter((entry): entry is [string, string] => typeof entry[1] === "string");
      ofGraph(attributes, graphId)[nodeId] = Object.fromEntries(strings);
    }
  }
  return attributes;
}
