// Whether a view can paint colours the kernel sent ahead as they are, or must ask, naming its node facts.
import { describe, expect, it } from "vitest";
import { type ColoursReply, coloursFitFacts } from "../../../js/kernel/protocol";

const explorer = (facts: string, withAttributes: boolean): ColoursReply => ({
  kind: "model-explorer",
  colourRev: 2,
  facts,
  nodeData: { name: "time", key: "" },
  nodeAttributes: withAttributes ? { keys: ["baseline_delta"] } : null,
});
const netron = (facts: string, withCompanion: boolean): ColoursReply => ({
  kind: "netron",
  colourRev: 2,
  facts,
  overlay: null,
  attachment: withCompanion ? "metrics.json" : null,
});

describe("coloursFitFacts", () => {
  it("takes colours that carry their node facts, or whose facts the view shows", () => {
    expect(coloursFitFacts(explorer("f2", true), "f1")).toBe(true);
    expect(coloursFitFacts(explorer("f1", false), "f1")).toBe(true);
    expect(coloursFitFacts(netron("m2", true), "m1")).toBe(true);
    expect(coloursFitFacts(netron("m1", false), "m1")).toBe(true);
  });

  it("asks where the view shows other facts than colours sent without theirs", () => {
    expect(coloursFitFacts(explorer("f2", false), "f1")).toBe(false);
    expect(coloursFitFacts(netron("m2", false), "m1")).toBe(false);
  });

  it("takes Model Explorer colours of no facts: there are no attributes to set", () => {
    expect(coloursFitFacts(explorer("", false), "f1")).toBe(true);
  });
});
