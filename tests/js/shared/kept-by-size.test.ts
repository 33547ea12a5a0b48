import { describe, expect, it } from "vitest";
import { KeptBySize } from "../../../js/shared/kept-by-size";

describe("values kept by key up to a total size", () => {
  it("drops the least recently used first, and keeps nothing over the whole limit", () => {
    const kept = new KeptBySize<string>(10);
    kept.set("a", "A", 4);
    kept.set("b", "B", 4);
    expect(kept.get("a")).toBe("A"); // a used last: b goes first
    kept.set("c", "C", 4);
    expect(kept.get("b")).toBeUndefined();
    expect([kept.get("a"), kept.get("c")]).toEqual(["A", "C"]);
    kept.set("huge", "H", 11);
    expect(kept.get("huge")).toBeUndefined();
    expect(kept.get("a")).toBe("A"); // nothing dropped for it
  });

  it("counts a key set again once, and forgets one deleted", () => {
    const kept = new KeptBySize<string>(10);
    kept.set("a", "A1", 6);
    kept.set("a", "A2", 6); // in place of A1: 6 kept, not 12
    kept.set("b", "B", 4);
    expect([kept.get("a"), kept.get("b")]).toEqual(["A2", "B"]);
    kept.delete("a");
    kept.set("c", "C", 6); // room made by the delete
    expect([kept.get("a"), kept.get("b"), kept.get("c")]).toEqual([undefined, "B", "C"]);
  });
});
