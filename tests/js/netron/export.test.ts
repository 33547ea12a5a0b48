import { describe, expect, it } from "vitest";
import { checkExport, MAX_NAME, MENU_EXPORT_WAIT_MS, MenuExportPermit, sanitiseName } from "../../../js/netron/export";

const png = new Blob(["\x89PNG"], { type: "image/png" });
const svg = new Blob(["<svg/>"], { type: "image/svg+xml" });

describe("checkExport", () => {
  it("accepts Netron's PNG and SVG exports after a click", () => {
    expect(checkExport({ file: "BertModel.onnx.json.png", blob: png }, true)).toEqual({
      ok: true,
      name: "BertModel.onnx.json.png",
      type: "image/png",
    });
    expect(checkExport({ file: "model.SVG", blob: svg }, true)).toMatchObject({ ok: true, name: "model.svg", type: "image/svg+xml" });
    // Netron 9's own SVG export says "image/svg": downloaded as image/svg+xml.
    const netronSvg = new Blob(["<svg/>"], { type: "image/svg" });
    expect(checkExport({ file: "model.svg", blob: netronSvg }, true)).toMatchObject({ ok: true, type: "image/svg+xml" });
  });

  it("refuses anything the user did not start with a click", () => {
    expect(checkExport({ file: "model.png", blob: png }, false)).toMatchObject({ ok: false, reason: expect.stringContaining("click") });
  });

  it("refuses other file types, whatever the MIME type says", () => {
    const exe = new Blob(["MZ"], { type: "application/octet-stream" });
    const html = new Blob(["<script>alert(1)</script>"], { type: "text/html" });
    for (const [file, blob] of [
      ["setup.exe", exe],
      ["page.html", html],
      ["page.html", png],
      ["image.png.exe", png],
      ["no-extension", png],
    ] as const) {
      expect(checkExport({ file, blob }, true).ok, file).toBe(false);
    }
  });

  it("refuses a MIME type that does not match the extension", () => {
    const html = new Blob(["<script>alert(1)</script>"], { type: "text/html" });
    expect(checkExport({ file: "graph.png", blob: html }, true)).toMatchObject({ ok: false, reason: expect.stringContaining("image/png") });
    expect(checkExport({ file: "graph.svg", blob: png }, true).ok).toBe(false);
    expect(checkExport({ file: "graph.png", blob: "not a blob" }, true).ok).toBe(false);
    expect(checkExport({ file: 42, blob: png }, true).ok).toBe(false);
  });
});

describe("sanitiseName", () => {
  it("keeps a plain name and puts the checked extension last", () => {
    expect(sanitiseName("gpt2.onnx.json.png", "png")).toBe("gpt2.onnx.json.png");
  });

  it("drops directories, leading dots and characters that could disguise or break the name", () => {
    expect(sanitiseName("../../etc/.bashrc.png", "png")).toBe("bashrc.png");
    expect(sanitiseName("C:\\Users\\x\\evil.png", "png")).toBe("evil.png");
    expect(sanitiseName("gnp\u202Eexe.png", "png")).toBe("gnp_exe.png"); // a bidi override
    expect(sanitiseName('a<b>c:"d|e?f*\x00.svg', "svg")).toBe("a_b_c__d_e_f__.svg");
    expect(sanitiseName(".png", "png")).toBe("graph.png");
  });

  it("bounds the length without splitting a character", () => {
    const name = sanitiseName(`${"😀".repeat(300)}.png`, "png");
    expect([...name].length).toBe(MAX_NAME);
    expect(name.endsWith("😀.png")).toBe(true);
  });
});

describe("MenuExportPermit", () => {
  it("lets through the image of the export the user started, however long it took to build", () => {
    const permit = new MenuExportPermit();
    permit.grant("model.png", 1_000);
    expect(permit.take("model.png", 1_000 + MENU_EXPORT_WAIT_MS)).toBe(true);
  });

  it("serves one image of the file it was granted for, within its wait", () => {
    const permit = new MenuExportPermit();
    expect(permit.take("model.png", 0)).toBe(false); // never granted
    permit.grant("model.png", 0);
    expect(permit.take("other.png", 1)).toBe(false); // another file uses the permit up
    expect(permit.take("model.png", 2)).toBe(false);
    permit.grant("model.png", 0);
    expect(permit.take("model.png", 1)).toBe(true);
    expect(permit.take("model.png", 2)).toBe(false); // used
    permit.grant("model.svg", 0);
    expect(permit.take("model.svg", MENU_EXPORT_WAIT_MS + 1)).toBe(false); // too late
  });
});
