import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { gunzip, gunzipText } from "../../../js/kernel/bytes";

describe("gunzip", () => {
  it("gives back the bytes the kernel compressed, from a DataView into a larger buffer", async () => {
    const text = JSON.stringify({ results: Object.fromEntries([...Array(5000).keys()].map((i) => [`n${i}`, { value: i }])) });
    const packed = gzipSync(Buffer.from(text));
    const padded = new Uint8Array(packed.length + 8);
    padded.set(packed, 4);
    expect(await gunzipText(new DataView(padded.buffer, 4, packed.length))).toBe(text);
  });

  it("rejects bytes that are not gzip", async () => {
    await expect(gunzip(new Uint8Array([1, 2, 3, 4, 5]))).rejects.toThrow();
  });
});
