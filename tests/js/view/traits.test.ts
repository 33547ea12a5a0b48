import { describe, expect, it } from "vitest";
import { listen, type TraitsModel } from "../../../js/view/traits";
import { FakeWidgetModel } from "../fake-widget-model";

describe("listen", () => {
  it("calls each handler on its event, and the returned stop removes exactly those", () => {
    const fake = new FakeWidgetModel({ _colour_rev: 0 });
    const model = fake as unknown as TraitsModel;
    const seen: string[] = [];
    const stop = listen(model, [
      ["change:_colour_rev", () => seen.push("colours")],
      ["change:_graph_rev", () => seen.push("graph")],
    ]);
    fake.set("_colour_rev", 1);
    fake.set("_graph_rev", 1);
    stop();
    fake.set("_colour_rev", 2);
    expect(seen).toEqual(["colours", "graph"]);
  });

  it("takes only the events of traits the widget has (checked by tsc, which runs over this file)", () => {
    const model = new FakeWidgetModel() as unknown as TraitsModel;
    // @ts-expect-error: no such trait; a misspelt event would never fire
    const stop = listen(model, [["change:_colour_revision", () => undefined]]);
    stop();
    expect(typeof stop).toBe("function");
  });
});
