import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { cspHash, sha256 } from "../../../js/shared/csp";

describe("sha256", () => {
  it("matches node's for empty, short, block-edge, multi-block and non-ASCII text", () => {
    for (const text of ["", "abc", "a".repeat(55), "a".repeat(56), "a".repeat(64), "x".repeat(1000), "ünïcödé </script> ✓"]) {
      const expected = createHash("sha256").update(text, "utf8").digest("base64");
      expect(cspHash(text), text.slice(0, 10)).toBe(`'sha256-${expected}'`);
    }
    expect(Buffer.from(sha256(new TextEncoder().encode("abc"))).toString("hex")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });
});
