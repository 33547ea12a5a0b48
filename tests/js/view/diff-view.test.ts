import { describe, expect, it } from "vitest";
import { deltaText, diffView } from "../../../js/view/diff-view";
import type { TraitsModel } from "../../../js/view/traits";
import type { TopDelta } from "../../../js/view/traits";

// A run that went NaN is the run a user diffs: its summary's largest deltas are NaN or Inf. JSON has no
// such number, so the kernel sends null and says which in `text`; an older kernel's serializer sent "nan".
const modelWith = (top: unknown[]): TraitsModel =>
  ({ get: (name: string) => (name === "summary" ? { line: "changed 1", top } : undefined) }) as unknown as TraitsModel;

describe("the diff's largest deltas", () => {
  it("shows a non-finite delta as such, and a finite one to 3 digits", () => {
    const selected: string[] = [];
    const top = [
      { node_id: "n1", label: "addmm_3_40:1", value: null, text: "NaN" },
      { node_id: "n2", label: "gelu_1_41:1", value: null, text: "inf" },
      { node_id: "n3", label: "linear_2_3:1", value: 0.012345, text: "0.0123" },
    ];
    const chips = diffView.chips(modelWith(top), (id) => selected.push(id));
    expect(chips.map((chip) => chip.text)).toEqual(["addmm_3_40:1 NaN", "gelu_1_41:1 inf", "linear_2_3:1 0.0123"]);
    chips[0].onClick();
    expect(selected).toEqual(["n1"]);
  });

  it("never throws on what a kernel may send for a non-finite value", () => {
    const odd = [
      { node_id: "a", label: "a", value: "nan" }, // Jupyter's serializer turns NaN into "nan"
      { node_id: "b", label: "b", value: Number.NaN },
      { node_id: "c", label: "c", value: Number.POSITIVE_INFINITY },
      { node_id: "d", label: "d", value: null },
    ];
    const texts = diffView.chips(modelWith(odd), () => {}).map((chip) => chip.text);
    expect(texts).toEqual(["a nan", "b NaN", "c Infinity", "d not comparable"]);
    expect(deltaText({ node_id: "e", label: "e", value: 1234.5 } as TopDelta)).toBe("1.23e+3");
  });
});
