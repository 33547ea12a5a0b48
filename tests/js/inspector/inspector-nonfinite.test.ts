// @vitest-environment happy-dom
// The inspector's non-finite box: the op's role, its source line and each input's range against its
// dtype's limits, as text only (nothing from the kernel becomes markup).
import { describe, expect, it } from "vitest";
import { fractionText, nonFiniteBox } from "../../../js/inspector/inspector-nonfinite";
import { DASH } from "../../../js/shared/number-format";
import type { InputRangeRow } from "../../../js/kernel/protocol";

const fp16: InputRangeRow = {
  label: "mul_1_2:1",
  dtype: "torch.float16",
  minimum: -12,
  maximum: 63_488,
  abs_max: 63_488,
  dtype_max: 65_504,
  fraction_of_max: 63_488 / 65_504,
  nan_count: 0,
  inf_count: 0,
  finding: "near the float16 maximum",
};

describe("nonFiniteBox", () => {
  it("says a producer was fed finite inputs, one block per input with its range against its dtype", () => {
    const box = nonFiniteBox(document, { role: "producer", source: "model.py:12", inputs: [fp16] });
    expect(box.dataset.role).toBe("producer");
    expect(box.textContent).toContain("born here");
    expect(box.textContent).toContain("model.py:12");
    const input = box.querySelector("[data-input='mul_1_2:1']");
    expect(input?.textContent).toContain("float16");
    expect(input?.textContent).toContain("96.92% of 65,504");
    expect(input?.textContent).toContain("near the float16 maximum");
  });

  it("tells a carrier apart, and a tiny fraction, a missing range and markup as text", () => {
    const far = { ...fp16, label: "<b>x</b>", fraction_of_max: 1e-39, minimum: null, maximum: null, nan_count: 3, finding: "" };
    const box = nonFiniteBox(document, { role: "propagated", source: "", inputs: [far] });
    expect(box.textContent).toContain("carries non-finite values");
    expect(box.textContent).toContain("no finite value");
    expect(box.textContent).toContain("3 NaN");
    expect(box.querySelector("b")).toBeNull();
    expect(fractionText(far)).toBe("< 0.01% of 65,504");
    expect(fractionText({ ...fp16, dtype_max: null })).toBe(DASH);
  });

  it("names the parameter a producer's NaN came in through", () => {
    const weight = { ...fp16, label: "h.1.mlp.c_fc.weight", nan_count: 1, finding: "" };
    const box = nonFiniteBox(document, { role: "producer", source: "", inputs: [fp16, weight] });
    expect(box.querySelector("strong")?.textContent).toBe("Non-finite values enter the graph here, through h.1.mlp.c_fc.weight");
  });
});
