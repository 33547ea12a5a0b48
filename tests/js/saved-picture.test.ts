import { describe, expect, it } from "vitest";
import { lossMessage } from "../../js/kernel-watch";
import { restoredWithoutKernel } from "../../js/saved-picture";

/** ipywidgets' model as the manager holds it: attributes, and a comm when a kernel holds it. */
function managed(layout: object, comm: unknown) {
  const attributes: Record<string, unknown> = { layout };
  return { get: (name: string) => attributes[name], comm, comm_live: comm !== undefined };
}

/** The page's widget manager with these models, and anywidget's view model of `ours`. */
function page(ours: ReturnType<typeof managed>, others: ReturnType<typeof managed>[] = []) {
  const models = Object.fromEntries([...others, ours].map((model, i) => [`id${i}`, Promise.resolve(model)]));
  return { get: ours.get, widget_manager: { _models: models } };
}

describe("restoredWithoutKernel", () => {
  it("is true for a model restored from a saved notebook (no comm)", async () => {
    const ours = managed({}, undefined);
    expect(await restoredWithoutKernel(page(ours, [managed({}, {})]))).toBe(true);
  });

  it("is false for a model a kernel holds, whatever the other models are", async () => {
    const ours = managed({}, { send() {} });
    expect(await restoredWithoutKernel(page(ours, [managed({}, undefined)]))).toBe(false);
  });

  it("does not know on a host without ipywidgets' manager (marimo, a saved page)", async () => {
    const ours = managed({}, undefined);
    expect(await restoredWithoutKernel({ get: ours.get, widget_manager: undefined })).toBeNull();
    expect(await restoredWithoutKernel({ get: () => undefined, widget_manager: { _models: {} } })).toBeNull();
  });

  it("skips models that failed to load", async () => {
    const ours = managed({}, undefined);
    const models = { broken: Promise.reject(new Error("gone")), ours: Promise.resolve(ours) };
    expect(await restoredWithoutKernel({ get: ours.get, widget_manager: { _models: models } })).toBe(true);
  });

  it("finds its model while another model is still loading", async () => {
    const ours = managed({}, undefined);
    const models = { loading: new Promise<never>(() => {}), ours: Promise.resolve(ours) };
    expect(await restoredWithoutKernel({ get: ours.get, widget_manager: { _models: models } })).toBe(true);
  });

  it("tells the user how to get the live view back", () => {
    expect(lossMessage("restored")).toMatch(/^Run this cell for the live view/);
  });
});
