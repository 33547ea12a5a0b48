import { describe, expect, it } from "vitest";
import { UnpackedTexts } from "../../../js/kernel/unpacked-texts";

async function gzipped(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

describe("texts unpacked from the kernel's buffers, kept by key", () => {
  it("unpacks a buffer once per key, and every time without one", async () => {
    const texts = new UnpackedTexts();
    const bytes = await gzipped('{"a":1}');
    expect(await texts.text("k", bytes)).toBe('{"a":1}');
    // the same key: the kept text, whatever the bytes (equal keys, equal bytes)
    expect(await texts.text("k", new Uint8Array([1, 2, 3]))).toBe('{"a":1}');
    await expect(texts.text("", new Uint8Array([1, 2, 3]))).rejects.toThrow();
  });

  it("keeps at most its count of characters, dropping the least recently used", async () => {
    const texts = new UnpackedTexts(10);
    const junk = new Uint8Array([1, 2, 3]);
    await texts.text("a", await gzipped("aaaa"));
    await texts.text("b", await gzipped("bbbb"));
    await texts.text("a", junk); // a used last
    await texts.text("c", await gzipped("cccc"));
    expect(await texts.text("a", junk)).toBe("aaaa");
    await expect(texts.text("b", junk)).rejects.toThrow(); // dropped: unpacked again, and these are no gzip
    await texts.text("long", await gzipped("x".repeat(11))); // longer than all kept: not kept
    await expect(texts.text("long", junk)).rejects.toThrow();
  });
});
