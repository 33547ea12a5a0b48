// @vitest-environment happy-dom
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { NetronView } from "../../../../js/netron/frame/netron-view";
import { NETRON_EXPORT, NETRON_EXPORT_STARTED } from "../../../../js/netron/protocol";

const posted: { cmd: string; [key: string]: unknown }[] = [];
vi.mock("../../../../js/netron/frame/frame-messages", () => ({
  post: (message: { cmd: string }) => posted.push(message),
}));
const { FrameHost } = await import("../../../../js/netron/frame/netron-host");

class BinaryStream {}
const png = new Blob(["\x89PNG"], { type: "image/png" });

/** A Netron view as far as export goes: view.export(file) builds the image and calls host.export. */
async function hostWithView() {
  const host = new FrameHost("8.0.0", new Set(), BinaryStream as never, null);
  const view = {
    async export(file: string) {
      await host.export(file, png);
    },
  } as unknown as NetronView;
  await host.view(view); // what Netron's View constructor does
  return { host, view };
}

const exports = () => posted.filter((message) => message.cmd === NETRON_EXPORT);
const started = () => posted.filter((message) => message.cmd === NETRON_EXPORT_STARTED);

/** Whether the frame counts a click just now (navigator.userActivation.isActive). */
function clicked(active: boolean): void {
  Object.defineProperty(navigator, "userActivation", { value: { isActive: active, hasBeenActive: true }, configurable: true });
}

describe("the Netron frame's host posts an export only from Netron's own export command", () => {
  beforeEach(() => {
    posted.length = 0;
    clicked(true);
    document.body.innerHTML = '<div id="message-text"></div><button id="message-button"></button>';
  });

  it("says a menu export started while the click counts, then posts the image Netron built", async () => {
    const { view } = await hostWithView();
    await view.export("model.png");
    expect(started()).toEqual([{ cmd: NETRON_EXPORT_STARTED, file: "model.png" }]);
    expect(exports()).toEqual([{ cmd: NETRON_EXPORT, file: "model.png", blob: png }]);
    expect(posted.map((message) => message.cmd)).toEqual([NETRON_EXPORT_STARTED, NETRON_EXPORT]);
  });

  it("posts the image even when the click no longer counts once it is built (a big graph's PNG)", async () => {
    const host = new FrameHost("8.0.0", new Set(), BinaryStream as never, null);
    const view = {
      async export(file: string) {
        clicked(false); // the PNG took longer than the browser's few seconds of user activation
        await host.export(file, png);
      },
    } as unknown as NetronView;
    await host.view(view);
    await view.export("model.png");
    expect(exports()).toEqual([{ cmd: NETRON_EXPORT, file: "model.png", blob: png }]);
  });

  it("starts no menu export without a click", async () => {
    const { view } = await hostWithView();
    clicked(false);
    await view.export("model.png");
    expect(posted).toEqual([]);
    expect(document.getElementById("message-text")?.textContent).toContain("Export needs a click in the viewer");
  });

  it("answers the widget's own button (its request id) through the same command", async () => {
    const { host, view } = await hostWithView();
    host.exportRequest = 7; // WidgetFrame.exportImage sets it, then calls view.export
    clicked(false); // that click was in the page
    await view.export("model.svg");
    expect(exports()).toEqual([{ cmd: NETRON_EXPORT, file: "model.svg", blob: png, request: 7 }]);
    expect(started()).toEqual([]);
  });

  it("posts nothing for a save that did not come from the export command", async () => {
    const { host, view } = await hostWithView();
    await host.export("tensor.npy", new Blob(["npy"])); // the sidebar's "save tensor", or any script
    await host.export("model.png", png);
    expect(exports()).toEqual([]);
    expect(document.getElementById("message-text")?.textContent).toContain("Only Netron's Export as PNG or SVG");
    // One export lets one file through: a second post of the same name afterwards is refused too.
    await view.export("model.png");
    await host.export("model.png", png);
    expect(exports()).toHaveLength(1);
  });
});
