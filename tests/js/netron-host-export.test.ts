// @vitest-environment happy-dom
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { NetronView } from "../../js/netron/netron-view";
import { NETRON_EXPORT } from "../../js/netron/protocol";

const posted: { cmd: string; [key: string]: unknown }[] = [];
vi.mock("../../js/netron/frame-messages", () => ({
  post: (message: { cmd: string }) => posted.push(message),
}));
const { FrameHost } = await import("../../js/netron/netron-host");

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

describe("the Netron frame's host posts an export only from Netron's own export command", () => {
  beforeEach(() => {
    posted.length = 0;
    document.body.innerHTML = '<div id="message-text"></div><button id="message-button"></button>';
  });

  it("posts the image Netron's Export as PNG built", async () => {
    const { view } = await hostWithView();
    await view.export("model.png");
    expect(exports()).toEqual([{ cmd: NETRON_EXPORT, file: "model.png", blob: png }]);
  });

  it("answers the widget's own button (its request id) through the same command", async () => {
    const { host, view } = await hostWithView();
    host.exportRequest = 7; // WidgetFrame.exportImage sets it, then calls view.export
    await view.export("model.svg");
    expect(exports()).toEqual([{ cmd: NETRON_EXPORT, file: "model.svg", blob: png, request: 7 }]);
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
