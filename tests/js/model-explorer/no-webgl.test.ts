// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import type { AssetBundle } from "../../../js/kernel/assets";
import { viewerRemedy } from "../../../js/shared/error-text";
import { ModelExplorerFrame } from "../../../js/model-explorer/bridge";
import { SHIM_FAILED, SHIM_NO_WEBGL } from "../../../js/model-explorer/protocol";

// The frame's own script (the shim and the boot) is empty in unit tests (vitest.config.ts): the test
// plays the frame's part by posting its messages to the page.

const INDEX_HTML = '<!doctype html><html><head><base href="/"></head><body><app-root></app-root></body></html>';

function bundle(): AssetBundle {
  return {
    key: "model-explorer@test",
    viewer: "model-explorer",
    version: "0",
    index: [{ name: "index.html", role: "page" }],
    files: new Map([["index.html", new TextEncoder().encode(INDEX_HTML)]]),
    wireBytes: 0,
  } as AssetBundle;
}

/** A Model Explorer frame in the page, its graph still on its way from the kernel. */
function frame() {
  const container = document.createElement("div");
  document.body.appendChild(container);
  const made = new ModelExplorerFrame(container, { bundle: bundle(), graph: new Promise(() => {}), onSelect: () => {} });
  /** Posts `data` to the page as the frame does (its window, the sandbox's opaque origin). */
  const fromFrame = (data: Record<string, unknown>) =>
    window.dispatchEvent(new MessageEvent("message", { data, origin: "null", source: made.iframe.contentWindow }));
  return { made, fromFrame };
}

describe("a Model Explorer frame in a browser that gives it no WebGL", () => {
  it("fails its draw at once, naming WebGL and offering Netron", async () => {
    const { made, fromFrame } = frame();
    expect(made.iframe.contentWindow).not.toBeNull();
    fromFrame({ cmd: SHIM_NO_WEBGL });
    const error = await made.rendered.then(
      () => null,
      (failed: unknown) => failed,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/no WebGL/);
    expect((error as Error).message).toContain("Remedy");
    expect(viewerRemedy(error)).toBe("netron"); // the error box's button switches to it
    made.dispose();
  });

  it("hears that only from its own frame", async () => {
    const { made } = frame();
    const other = frame(); // another widget's frame on the page
    other.fromFrame({ cmd: SHIM_NO_WEBGL });
    const settled = await Promise.race([
      made.rendered.then(
        () => "drawn",
        () => "failed",
      ),
      Promise.resolve("pending"),
    ]);
    expect(settled).toBe("pending");
    made.dispose();
    other.made.dispose();
  });

  it("keeps a layout worker's failure its own error, with no viewer switch offered", async () => {
    const { made, fromFrame } = frame();
    fromFrame({ cmd: SHIM_FAILED, message: "out of memory", fatal: true });
    const error = await made.rendered.then(
      () => null,
      (failed: unknown) => failed,
    );
    expect((error as Error).message).toContain("layout worker failed");
    expect(viewerRemedy(error)).toBeNull();
    made.dispose();
  });
});
