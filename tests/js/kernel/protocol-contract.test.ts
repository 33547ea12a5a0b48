// The protocol's contract: the sample replies pytest writes from the real kernel side
// (tests/fixtures/protocol/*.json: {method, params, result, buffer_bytes}) parse with the parsers
// the views use, into the reply kind each sample is of; the shared constants agree.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  parseColoursReply,
  debugQuestions,
  HIGHLIGHT_COLOUR,
  HIGHLIGHT_ROLE_COLOURS,
  HIGHLIGHT_ROLE_FILLS,
  INSPECTOR_WIDTH,
  MASK_CODES,
  MIN_INSPECTOR_WIDTH,
  NOT_IN_EVERY_RUN_BORDER,
  PICTURE_MAX_CHARS,
  PICTURE_PREFIXES,
  parseAssetsReply,
  parseDebugReply,
  parseGraphReply,
  parseInspectReply,
  parseMemoryTimelineReply,
  parseOverlaysAheadReply,
  parseResponse,
  RECORDING_FORMAT,
  TIMELINES,
  type GraphReply,
  type InspectReply,
} from "../../../js/kernel/protocol";
import { formatBytes } from "../../../js/memory/strip-columns";
import { WIDGET_TRAIT_NAMES } from "../../../js/view/traits";

const FIXTURES = path.resolve(__dirname, "../../fixtures/protocol");

interface Sample {
  method: string;
  params: Record<string, unknown>;
  result: unknown;
  buffer_bytes: number[];
}

const read = (name: string): unknown => JSON.parse(readFileSync(path.join(FIXTURES, `${name}.json`), "utf8"));
const sample = (name: string): Sample => read(name) as Sample;

/** Each sample reply, and the kind its parsed value must have. */
const GRAPHS: [string, "model-explorer" | "netron", GraphReply["kind"]][] = [
  ["graph-model-explorer", "model-explorer", "model-explorer"],
  ["graph-model-explorer-diff", "model-explorer", "model-explorer-diff"],
  ["graph-netron", "netron", "netron"],
];
/** Each sample colours reply, the viewer it is for, and what it sends. */
const COLOURS: [string, "model-explorer" | "netron"][] = [
  ["colours-model-explorer", "model-explorer"],
  ["colours-netron", "netron"],
];
const INSPECTS: [string, InspectReply["kind"]][] = [
  ["inspect-none", "none"],
  ["inspect-op", "op"],
  ["inspect-module", "module"],
  ["inspect-difference", "difference"],
  ["inspect-baseline", "op"],
  ["inspect-memory", "op"],
  ["inspect-compare", "op"],
];

describe("the kernel's sample replies", () => {
  it("are all here, and each one is checked below", () => {
    const names = readdirSync(FIXTURES).map((file) => file.replace(/\.json$/, ""));
    const checked = [
      "assets-model-explorer",
      "assets-netron",
      "error",
      "constants",
      "response-text-gateway",
      "memory-timeline",
      ...GRAPHS.map(([name]) => name),
      ...COLOURS.map(([name]) => name),
      ...INSPECTS.map(([name]) => name),
    ];
    expect(names).toEqual(expect.arrayContaining(checked));
    // Every other inspect sample is a record kind the parser must accept too.
    for (const name of names.filter((n) => n.startsWith("inspect-") && !checked.includes(n))) {
      expect(parseInspectReply(sample(name).result).kind).not.toBe("none");
    }
  });

  it.each([
    ["assets-model-explorer", "model-explorer"],
    ["assets-netron", "netron"],
  ] as const)("%s parses as %s assets with a role per buffer", (name, viewer) => {
    const { result, buffer_bytes } = sample(name);
    const reply = parseAssetsReply(result, buffer_bytes.length);
    expect(reply.viewer).toBe(viewer);
    expect(reply.version).not.toBe("");
    expect(reply.files.filter((file) => file.role === "page")).toHaveLength(1);
    const roles = new Set(reply.files.map((file) => file.role));
    expect([...roles].sort()).toEqual(
      viewer === "netron" ? ["module", "page", "style", "worker"] : ["data", "entry", "font", "page", "style", "worker"],
    );
  });

  it("refuses an assets reply with a buffer missing", () => {
    const { result, buffer_bytes } = sample("assets-netron");
    expect(() => parseAssetsReply(result, buffer_bytes.length - 1)).toThrow("Remedy: restart the kernel");
  });

  it.each(GRAPHS)("%s parses as a %s graph of kind %s", (name, viewer, kind) => {
    const { method, result, buffer_bytes } = sample(name);
    expect(method).toBe("graph");
    expect(parseGraphReply(viewer, result, buffer_bytes.length).kind).toBe(kind);
  });

  it.each(COLOURS)("%s parses as %s colours with the node facts it sends", (name, viewer) => {
    const { method, result, buffer_bytes } = sample(name);
    expect(method).toBe("colours");
    const reply = parseColoursReply(viewer, result, buffer_bytes.length);
    expect(reply.kind).toBe(viewer);
    expect(reply.facts).not.toBe("");
    if (reply.kind === "netron")
      expect([reply.attachment, Object.keys(reply.overlay?.values ?? {}).length > 0]).toEqual([expect.any(String), true]);
    else expect([reply.nodeData?.name, reply.nodeAttributes?.keys.length]).toEqual([expect.any(String), 4]);
    expect(() => parseColoursReply(viewer, result, buffer_bytes.length + 1)).toThrow("colour buffers");
  });

  it("a graph reply carries its colours, their buffers after the graph's", () => {
    const me = parseGraphReply("model-explorer", sample("graph-model-explorer").result, 2);
    expect(me.kind === "model-explorer" && me.colours).toMatchObject({
      kind: "model-explorer",
      nodeData: { name: expect.any(String), key: expect.stringMatching(/^[0-9a-f]{16}$/) },
    });
    const netron = parseGraphReply("netron", sample("graph-netron").result, 2);
    expect(netron.kind === "netron" && netron.colours.attachment).toBe("TwoPass.onnx.attachment.json");
    expect(() => parseGraphReply("netron", sample("graph-netron").result, 1)).toThrow("0 colour buffers");
  });

  it("a Netron graph reply names the boxes of a comparison's ops that some runs lack", () => {
    const { result } = sample("graph-netron");
    const plain = parseGraphReply("netron", result, 2);
    expect(plain.kind === "netron" && plain.marked).toEqual([]); // an explorer's: none
    const compared = parseGraphReply("netron", { ...(result as object), marked: ["mul_1_4"] }, 2);
    expect(compared.kind === "netron" && compared.marked).toEqual(["mul_1_4"]);
    expect(() => parseGraphReply("netron", { ...(result as object), marked: [3] }, 2)).toThrow("'marked' holds something other than text");
  });

  it.each(INSPECTS)("%s parses as an inspector reply of kind %s", (name, kind) => {
    const { method, result } = sample(name);
    expect(method).toBe("inspect");
    expect(parseInspectReply(result).kind).toBe(kind);
  });

  it("each debug sample parses as a status and the labels the kernel selected or highlighted", () => {
    const names = readdirSync(FIXTURES)
      .filter((file) => file.startsWith("debug-"))
      .map((file) => file.replace(/\.json$/, ""));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const { method, params, result } = sample(name);
      expect(method).toBe("debug");
      expect(["first_divergence", "first_nonfinite", "explain_nonfinite", "lineage"]).toContain(params.question);
      const reply = parseDebugReply(result);
      expect(reply.status).not.toBe("");
      expect(Array.isArray(reply.labels)).toBe(true);
    }
  });

  it("refuses a debug reply without a status or with labels that are not text", () => {
    expect(() => parseDebugReply({ labels: [] })).toThrow("'status' is not text");
    expect(() => parseDebugReply({ status: "x", labels: [1] })).toThrow("Remedy: restart the kernel");
    expect(parseDebugReply({ status: "x", labels: ["a"] })).toEqual({ status: "x", labels: ["a"] });
  });

  it("the overlays_ahead sample parses as the overlays the kernel builds ahead, the memory overlay among them", () => {
    const { method, result } = sample("overlays-ahead");
    expect(method).toBe("overlays_ahead");
    expect(parseOverlaysAheadReply(result).overlays).toContain("memory");
    expect(() => parseOverlaysAheadReply({ overlays: [1] })).toThrow("'overlays' holds something other than text");
  });

  it("keeps only the debug questions the toolbar has a button for, in the toolbar's order", () => {
    expect(debugQuestions(["explain_nonfinite", "first_nonfinite", "lineage", "first_divergence"])).toEqual([
      "first_divergence",
      "first_nonfinite",
      "explain_nonfinite",
    ]);
    expect(debugQuestions(undefined)).toEqual([]);
  });

  it("an inspect reply's exception (a partial capture's failing op) is kept, and must be text", () => {
    const { result } = sample("inspect-op");
    const withException = { ...(result as object), exception: "RuntimeError: boom" };
    const parsed = parseInspectReply(withException);
    expect(parsed.kind !== "none" && parsed.exception).toBe("RuntimeError: boom");
    expect(() => parseInspectReply({ ...(result as object), exception: 3 })).toThrow("'exception' is not text");
  });

  it("a non-finite producer's panel carries its role, source and inputs' ranges (every number or null)", () => {
    const parsed = parseInspectReply(sample("inspect-nonfinite").result);
    expect(parsed.kind).toBe("op");
    if (parsed.kind === "none") return;
    expect(parsed.nonfinite?.role).toBe("producer");
    expect(parsed.nonfinite?.inputs.length).toBeGreaterThan(0);
    for (const row of parsed.nonfinite?.inputs ?? []) expect(row.dtype_max === null || row.dtype_max > 0).toBe(true);
    const broken = { ...(sample("inspect-nonfinite").result as object), nonfinite: { role: "x", source: "", inputs: [] } };
    expect(() => parseInspectReply(broken)).toThrow("'role'");
    const badNumber = {
      role: "producer",
      source: "",
      inputs: [{ label: "a", dtype: "f", finding: "", nan_count: 0, inf_count: 0, minimum: "NaN" }],
    };
    expect(() => parseInspectReply({ ...(sample("inspect-nonfinite").result as object), nonfinite: badNumber })).toThrow("'minimum'");
  });

  it("an explorer's panel with a baseline carries torchlens' row and the difference's summary", () => {
    const { result } = sample("inspect-baseline");
    const parsed = parseInspectReply(result);
    if (parsed.kind === "none") throw new Error("the sample selects a node");
    expect(parsed.baseline?.reference).toBe("before");
    expect(parsed.baseline?.facts.find((row) => row.key === "status")?.value).toBe("changed");
    expect(parsed.baseline?.value?.status).toBe("summary");
    const section = (result as { baseline: object }).baseline;
    expect(() => parseInspectReply({ ...(result as object), baseline: { ...section, reference: 3 } })).toThrow("'reference'");
    expect(() => parseInspectReply({ ...(result as object), baseline: { ...section, value: { status: "x" } } })).toThrow("'status'");
    expect(() => parseInspectReply({ ...(result as object), baseline: { ...section, message: 1 } })).toThrow("'message'");
  });

  it("an op's panel with the memory overlay on carries torchlens' bytes, the tensors alive and its module's rollup", () => {
    const { result } = sample("inspect-memory");
    const parsed = parseInspectReply(result);
    if (parsed.kind === "none") throw new Error("the sample selects an op");
    expect(parsed.memory?.live_bytes).toBe(472);
    expect(parsed.memory?.alive.map((row) => row.label)).toContain("relu_1_2:1");
    expect(parsed.memory?.module_rollup.length).toBeGreaterThan(0);
    const section = (result as { memory: object }).memory;
    expect(() => parseInspectReply({ ...(result as object), memory: { ...section, live_bytes: "1" } })).toThrow("'live_bytes'");
    expect(() =>
      parseInspectReply({ ...(result as object), memory: { ...section, alive: [{ name: "a", bytes: 1, text: "1 B" }] } }),
    ).toThrow("'label'");
    expect(parseInspectReply(sample("inspect-op").result)).not.toHaveProperty("memory");
  });

  it("a comparison's panel carries the node in every run: a finite number or null, never NaN", () => {
    const { result } = sample("inspect-compare");
    const parsed = parseInspectReply(result);
    if (parsed.kind === "none") throw new Error("the sample selects an op");
    expect(parsed.runs?.runs.map((run) => run.name)).toEqual(["step0", "step1", "step2"]);
    expect(parsed.runs?.runs[0]).toEqual({ name: "step0", value: null, text: "reference", lacks: false });
    expect(parsed.runs?.shown).toBe("step1");
    const section = (result as { runs: { runs: object[] } }).runs;
    const broken = (run: object) => parseInspectReply({ ...(result as object), runs: { ...section, runs: [run] } });
    expect(() => broken({ ...section.runs[1], value: "1" })).toThrow("'value'");
    expect(() => broken({ ...section.runs[1], value: Number.NaN })).toThrow("'value'");
    expect(() => broken({ ...section.runs[1], lacks: 0 })).toThrow("'lacks'");
    expect(parseInspectReply(sample("inspect-op").result)).not.toHaveProperty("runs");
  });

  it("the memory strip's series is torchlens' live bytes, split into its categories, an op per point", () => {
    const { method, result } = sample("memory-timeline");
    expect(method).toBe("memory_timeline");
    const reply = parseMemoryTimelineReply(result);
    expect(reply.categories).toEqual(["input", "activation"]);
    reply.live.forEach((live, index) => {
      expect(reply.bands.reduce((sum, band) => sum + band[index], reply.baseline_bytes)).toBe(live);
    });
    expect(Math.max(...reply.live)).toBe(reply.peak_bytes);
    expect(reply.labels[reply.ordinals.indexOf(reply.peak_ordinal)]).toBe("relu_1_2:1");
    expect(reply.node_ids.every(Boolean)).toBe(true);
    // The strip writes bytes as torchlens does: the kernel's texts are torchlens' own.
    expect(formatBytes(reply.peak_bytes)).toBe(reply.peak_text);
    expect(formatBytes(reply.baseline_bytes)).toBe(reply.baseline_text);
    // Lists of another length, a non-finite number (NaN reaches JSON only as null), a band too few.
    const broken = result as Record<string, unknown>;
    expect(() => parseMemoryTimelineReply({ ...broken, labels: ["a"] })).toThrow("'labels' has 1 points for 3");
    expect(() => parseMemoryTimelineReply({ ...broken, live: [1, null, 3] })).toThrow("'live' holds a non-number");
    expect(() => parseMemoryTimelineReply({ ...broken, bands: [[1, 2, 3]] })).toThrow("1 bands for 2 categories");
    expect(() => parseMemoryTimelineReply({ ...broken, peak_bytes: -1 })).toThrow("'peak_bytes'");
  });

  it("error is a failed response with the kernel's message", () => {
    const response = parseResponse(read("error"));
    expect(response?.ok).toBe(false);
    expect(response && !response.ok && response.error).toContain("Remedy:");
  });

  it("a gateway kernel's text reply parses with its buffers and why they are text", () => {
    const response = parseResponse(read("response-text-gateway"));
    expect(response?.ok).toBe(true);
    if (!response?.ok) return;
    expect(response.base64_reason).toBe("gateway");
    expect(response.base64_buffers?.length).toBeGreaterThan(0);
    expect(parseInspectReply(response.result).kind).toBe("op");
  });

  it("constants match this side's", () => {
    expect(read("constants")).toEqual({
      mask_codes: MASK_CODES,
      recording_format: RECORDING_FORMAT,
      picture_prefixes: PICTURE_PREFIXES,
      picture_max_chars: PICTURE_MAX_CHARS,
      highlight_colour: HIGHLIGHT_COLOUR,
      not_in_every_run_border: NOT_IN_EVERY_RUN_BORDER,
      highlight_role_colours: HIGHLIGHT_ROLE_COLOURS,
      highlight_role_fills: HIGHLIGHT_ROLE_FILLS,
      inspector_width: INSPECTOR_WIDTH,
      min_inspector_width: MIN_INSPECTOR_WIDTH,
      timelines: TIMELINES,
      widget_traits: [...WIDGET_TRAIT_NAMES].sort(),
    });
  });
});
