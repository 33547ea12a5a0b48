// A baseline's facts as Model Explorer node attributes. The kernel sends them beside the collection,
// not in it, so a baseline set, changed or cleared sends the graph on screen again: the frame sets or
// removes them on the nodes drawn (frame/shim-recolour.ts) instead of laying the graph out again. A first
// draw has them merged into the collection it loads.

/** Graph id -> node id -> attribute key -> value. */
export type NodeAttributes = Record<string, Record<string, Record<string, string>>>;
/** What to change on the nodes drawn: graph id -> node id -> key -> its new value, or null to remove it. */
export type AttributeChanges = Record<string, Record<string, Record<string, string | null>>>;

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

/**
 * A collection node's attribute list with `set`'s keys replaced or added (removed where null). Plain
 * loops: a baseline switched on a 10,000-op graph merges this for every node of every copy of it.
 */
export function mergedAttrs(attrs: { key: string; value: unknown }[], set: Record<string, string | null>) {
  const merged: { key: string; value: unknown }[] = [];
  for (const attr of attrs) if (!(attr.key in set)) merged.push(attr);
  for (const key in set) {
    const value = set[key];
    if (value !== null) merged.push({ key, value });
  }
  return merged;
}

/**
 * Sets `set` on a collection node's attribute list in place: each key's entry given its new value, added
 * at the end, or removed where null. In place, not a new list: a baseline switched on a 10,000-op graph
 * does this for every node of every copy of it, and the lists made anew were most of the frame's garbage.
 */
export function mergeAttrs(attrs: { key: string; value: unknown }[], set: Record<string, string | null>): void {
  for (const key in set) {
    const value = set[key];
    const index = attrs.findIndex((attr) => attr.key === key);
    if (value === null) {
      if (index >= 0) attrs.splice(index, 1);
    } else if (index >= 0) attrs[index].value = value;
    else attrs.push({ key, value });
  }
}

/** Sets `set` on a drawn node's attributes in place: each key replaced or added (removed where null). */
export function mergeAttrsObject(attrs: Record<string, unknown>, set: Record<string, string | null>): void {
  for (const key in set) {
    const value = set[key];
    if (value === null) delete attrs[key];
    else attrs[key] = value;
  }
}

/**
 * What to change on the nodes drawn with `shown` to show `next`: the entries that differ, and null for
 * each attribute `next` drops (a baseline cleared, or a new one without that fact).
 */
export function attributeChanges(shown: NodeAttributes, next: NodeAttributes): AttributeChanges {
  const changes: AttributeChanges = {};
  for (const [graphId, nodes] of Object.entries(shown))
    for (const [nodeId, attrs] of Object.entries(nodes)) {
      const dropped = Object.keys(attrs).filter((key) => next[graphId]?.[nodeId]?.[key] === undefined);
      if (dropped.length) ofGraph(changes, graphId)[nodeId] = Object.fromEntries(dropped.map((key) => [key, null]));
    }
  for (const [graphId, nodes] of Object.entries(next))
    for (const [nodeId, attrs] of Object.entries(nodes)) {
      const before = shown[graphId]?.[nodeId] ?? {};
      const changed = Object.entries(attrs).filter(([key, value]) => before[key] !== value);
      if (!changed.length) continue;
      const ofNode = ofGraph(changes, graphId);
      ofNode[nodeId] = { ...ofNode[nodeId], ...Object.fromEntries(changed) };
    }
  return changes;
}

/** The nodes of `graphId` in `attributes`, added if missing. */
function ofGraph<T>(attributes: Record<string, Record<string, T>>, graphId: string): Record<string, T> {
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
