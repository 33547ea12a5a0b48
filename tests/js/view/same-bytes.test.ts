// An overlay switch in Netron sends the same model bytes (the kernel's cached artifact): the view
// repaints in place instead of opening and laying out again. Anything else is a new graph.
import { describe, expect, it } from "vitest";
import { sameBytes } from "../../../js/view/same-bytes";

const view = (bytes: number[], pad = 0): DataView => {
  const buffer = new Uint8Array(pad + bytes.length);
  buffer.set(bytes, pad);
  return new DataView(buffer.buffer, pad, bytes.length);
};

describe("sameBytes", () => {
  it("is true only for the very bytes on screen, wherever they sit in their buffer", () => {
    const shown = [new Uint8Array([1, 2, 3]), new Uint8Array([9])];
    expect(sameBytes(shown, [view([1, 2, 3], 5), view([9], 2)])).toBe(true);
    expect(sameBytes(shown, [view([1, 2, 4]), view([9])])).toBe(false);
    expect(sameBytes(shown, [view([1, 2, 3])])).toBe(false);
    expect(sameBytes(shown, [view([1, 2, 3, 4]), view([9])])).toBe(false);
    expect(sameBytes([], [])).toBe(false); // nothing drawn yet: open it
  });
});
