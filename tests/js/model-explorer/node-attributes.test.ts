import { describe, expect, it } from "vitest";
import {
  attributeChanges,
  mergeAttrs,
  mergeAttrsObject,
  parseNodeAttributes,
  withNodeAttributes,
} from "../../../js/model-explorer/node-attributes";

describe("a baseline's facts as Model Explorer node attributes", () => {
  it("are merged into the collection a first draw loads, replacing attributes of the same key", () => {
    const collection = JSON.stringify({
      label: "m",
      graphs: [
        {
          id: "g",
          nodes: [
            {
              id: "a",
              attrs: [
                { key: "diff_status", value: "old" },
                { key: "op", value: "add" },
              ],
            },
            { id: "b" },
          ],
        },
      ],
    });
    const merged = JSON.parse(withNodeAttributes(collection, { g: { a: { diff_status: "changed" }, b: { diff_status: "zero" } } }));
    expect(merged.graphs[0].nodes[0].attrs).toEqual([
      { key: "op", value: "add" },
      { key: "diff_status", value: "changed" },
    ]);
    expect(merged.graphs[0].nodes[1].attrs).toEqual([{ key: "diff_status", value: "zero" }]);
    expect(withNodeAttributes(collection, {})).toBe(collection); // no baseline: the text as sent
  });

  it("change in place: a baseline set, changed or cleared sets or removes only what differs", () => {
    const shown = { g: { a: { diff_status: "zero", diff_verdict: "ok" } } };
    expect(attributeChanges({}, shown)).toEqual(shown); // a baseline set
    expect(attributeChanges(shown, { g: { a: { diff_status: "changed", diff_verdict: "ok" }, b: { diff_status: "zero" } } })).toEqual({
      g: { a: { diff_status: "changed" }, b: { diff_status: "zero" } },
    });
    expect(attributeChanges(shown, {})).toEqual({ g: { a: { diff_status: null, diff_verdict: null } } }); // cleared
    expect(attributeChanges(shown, { g: { a: { diff_status: "changed" } } })).toEqual({
      g: { a: { diff_verdict: null, diff_status: "changed" } },
    });
    expect(attributeChanges(shown, shown)).toEqual({});
  });

  it("are checked as they arrive: only strings, only objects", () => {
    expect(parseNodeAttributes('{"g":{"a":{"k":"v","n":1},"b":[1]},"h":3}')).toEqual({ g: { a: { k: "v" } } });
    expect(() => parseNodeAttributes("[1]")).toThrow(/not an object/);
  });
});

describe("a baseline's facts merged onto the app's copies of a node, in place", () => {
  it("sets, adds and removes on a collection node's list itself, keeping the other entries where they are", () => {
    const attrs: { key: string; value: unknown }[] = [
      { key: "torchlens_label", value: "add_1_1:1" },
      { key: "diff_status", value: "zero" },
      { key: "diff_max_abs", value: "0" },
    ];
    const same = attrs;
    mergeAttrs(attrs, { diff_status: "changed", diff_max_abs: null, diff_rel: "0.5" });
    expect(attrs).toBe(same);
    expect(attrs).toEqual([
      { key: "torchlens_label", value: "add_1_1:1" },
      { key: "diff_status", value: "changed" },
      { key: "diff_rel", value: "0.5" },
    ]);
  });

  it("sets and removes on a drawn node's attributes object itself", () => {
    const attrs: Record<string, unknown> = { torchlens_label: "add_1_1:1", diff_status: "zero" };
    mergeAttrsObject(attrs, { diff_status: null, diff_rel: "0.5" });
    expect(attrs).toEqual({ torchlens_label: "add_1_1:1", diff_rel: "0.5" });
  });
});
