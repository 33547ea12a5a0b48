// The `inspect` request's reply, part of the protocol written down in js/kernel/protocol.ts (which re-exports
// it): a node's inspector panel as the kernel sends it (torchlens_widgets/_protocol.py's InspectRecord).

import { array, fail, type Json, object, oneOf, string } from "./json-checks";
import type { HighlightRole } from "./protocol-highlight";

// ----- the panel ------------------------------------------------------------------------------------------

export interface FactRow {
  key: string;
  name: string;
  value: unknown;
  text: string | null; // null: no value (shown as a dash)
  detail?: string; // the full text when `text` is shortened (e.g. the source path), as a tooltip
}

export interface TensorStats {
  count: number;
  finite_count: number;
  zero_count: number;
  nan_count: number;
  posinf_count: number;
  neginf_count: number;
  zero_fraction: number;
  nonfinite_fraction: number;
  min: number | null;
  max: number | null;
  mean: number | null;
  std: number | null;
  std_correction: number;
  numel: number;
  sample_size: number;
  sampled: boolean;
  stride: number;
}

export interface HistogramMeta {
  bins: number;
  lo: number;
  hi: number;
  buffer: number;
  dtype: "uint32le";
  total: number;
}

export interface HeatmapMeta {
  rows: number;
  cols: number;
  slice: string;
  slice_shape: number[];
  stride: number[];
  sampled: boolean;
  pooled: boolean;
  lo: number | null;
  hi: number | null;
  encoding: "uint8";
  buffer: number;
  /** A buffer of MASK_CODES per cell, when some cell is not finite. */
  mask_buffer: number | null;
}

export type ValueStatus = "summary" | "not_saved" | "withheld" | "not_tensor" | "unsupported" | "empty";

export interface ValueSection {
  status: ValueStatus;
  message?: string;
  source?: string | null; // Python expression of the summarised value, e.g. log["linear_1_1:1"].out
  note?: string;
  shape?: number[];
  dtype?: string;
  numel?: number;
  of?: "abs";
  stats?: TensorStats;
  histogram?: HistogramMeta | null;
  heatmap?: HeatmapMeta | null;
}

/** The kinds of record the inspector shows facts of ("other": a node a saved file has no facts for). */
export const RECORD_KINDS = ["op", "layer", "module", "module_call", "other"] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/** One input of an op against its dtype's limits (the kernel's numerics/ranges.py); null: not known. */
export interface InputRangeRow {
  label: string;
  dtype: string;
  minimum: number | null;
  maximum: number | null;
  abs_max: number | null;
  dtype_max: number | null;
  /** abs_max / dtype_max: how close the input came to the dtype's largest finite value. */
  fraction_of_max: number | null;
  nan_count: number;
  inf_count: number;
  /** torchlens' dtype_range_audit finding on that input, "" if none. */
  finding: string;
}

/** Where a non-finite op stands (explain_nonfinite): born here, or carrying an earlier op's values. */
export interface NonFiniteFacts {
  role: Exclude<HighlightRole, "ranked">;
  /** "file.py:12" of the op's call, "" when torchlens recorded none. */
  source: string;
  inputs: InputRangeRow[];
}

/**
 * An explorer's selected node against its baseline (w.baseline): torchlens' diff_report row for it and
 * the value summary of this trace's value minus the baseline's, as a diff's third panel shows b - a.
 */
export interface BaselineSection {
  /** The baseline's name, e.g. "gpt2_3". */
  reference: string;
  /** torchlens' row (status, max |Δ|, the baseline's op, verdict, detail); [] when the node has none. */
  facts: FactRow[];
  /** The summary of log[...].out - ref[...].out (its buffers follow the record's); null: not compared. */
  value: ValueSection | null;
  /** Why there is no difference: "not in gpt2_3", shapes that differ, a module box. */
  message?: string;
}

/** A byte count with torchlens' own text for it ("3.1 MB"); `name` is a category of its timeline. */
export interface MemoryBytes {
  name: string;
  bytes: number;
  text: string;
}

/** A tensor alive while the op ran: the op that produced it, and that op's node on screen ("" for none). */
export interface AliveTensorRow extends MemoryBytes {
  label: string;
  node_id: string;
}

/** The op in torchlens' memory picture (the memory overlay on): bytes alive when it ran, the largest
 * of those tensors, torchlens' rollup of its module. */
export interface MemorySection {
  live_bytes: number;
  live_text: string;
  above_baseline_text: string;
  baseline_text: string;
  caption: string;
  alive: AliveTensorRow[];
  alive_count: number;
  module: string;
  module_rollup: MemoryBytes[];
}

/** One run's value of the current overlay at the selected node (a comparison's small multiples). */
export interface RunValue {
  name: string;
  /** null: no value there (not measured, the reference's own delta, not in this run); never NaN. */
  value: number | null;
  /** The number as shown, or why there is none ("not in this run", "reference"). */
  text: string;
  /** The run has no op of the node's label. */
  lacks: boolean;
}

/** A comparison's selected node in every run (tlw.compare): the current overlay's value per run. */
export interface RunsSection {
  /** "" when no overlay is on: the runs are listed without values. */
  overlay: string;
  shown: string;
  reference: string;
  runs: RunValue[];
}

interface PanelReply {
  label: string;
  /** A partial capture's failing op: the exception it raised, e.g. "RuntimeError: shape mismatch". */
  exception?: string;
  /** An op holding non-finite values, once explain_nonfinite() ran: its role and its inputs' ranges. */
  nonfinite?: NonFiniteFacts;
  /** An explorer with a baseline: the node against it. */
  baseline?: BaselineSection;
  /** An op while the memory overlay is on: what torchlens estimates alive when it ran. */
  memory?: MemorySection;
  /** A comparison: the node in every run. */
  runs?: RunsSection;
  title: string;
  privacy_profile: string;
  expression: string;
  facts: FactRow[];
  value: ValueSection | null;
}

/** A torchlens record's facts and value summary. */
export interface RecordInspectReply extends PanelReply {
  kind: RecordKind;
}

/** A diff's third panel: b - a for the selected node. */
export interface DifferenceInspectReply extends PanelReply {
  kind: "difference";
}

/** Nothing selected on this side. */
export interface NoneInspectReply {
  kind: "none";
  label: "";
}

/** What the inspector panel draws: a record or a difference. */
export type PanelInspectReply = RecordInspectReply | DifferenceInspectReply;
export type InspectReply = NoneInspectReply | PanelInspectReply;

const INSPECT_KINDS = ["none", "difference", ...RECORD_KINDS] as const;

export function parseInspectReply(result: unknown): InspectReply {
  const what = "inspector reply";
  const value = object(what, result);
  const kind = oneOf(what, value, "kind", INSPECT_KINDS);
  if (kind === "none") return { kind, label: "" };
  const exception = value.exception;
  if (exception !== undefined && exception !== null && typeof exception !== "string") fail(what, "'exception' is not text");
  const nonfinite = value.nonfinite === undefined || value.nonfinite === null ? null : parseNonFinite(value.nonfinite);
  const baseline = value.baseline === undefined || value.baseline === null ? null : parseBaseline(value.baseline);
  const memory = value.memory === undefined || value.memory === null ? null : parseMemory(value.memory);
  const runs = value.runs === undefined || value.runs === null ? null : parseRuns(value.runs);
  return {
    kind,
    label: string(what, value, "label"),
    ...(typeof exception === "string" && exception ? { exception } : {}),
    ...(nonfinite ? { nonfinite } : {}),
    ...(baseline ? { baseline } : {}),
    ...(memory ? { memory } : {}),
    ...(runs ? { runs } : {}),
    title: string(what, value, "title"),
    privacy_profile: typeof value.privacy_profile === "string" ? value.privacy_profile : "",
    expression: string(what, value, "expression"),
    facts: factRows(what, value),
    value: valueSection(what, value.value),
  };
}

const VALUE_STATUSES = ["summary", "not_saved", "withheld", "not_tensor", "unsupported", "empty"] as const satisfies readonly ValueStatus[];

function factRows(what: string, value: Json): FactRow[] {
  return array(what, value, "facts").map((row) => object(what, row) as unknown as FactRow);
}

function valueSection(what: string, section: unknown): ValueSection | null {
  if (section === null || section === undefined) return null;
  oneOf(what, object(what, section), "status", VALUE_STATUSES);
  return section as ValueSection;
}

function parseBaseline(raw: unknown): BaselineSection {
  const what = "inspector reply's baseline section";
  const value = object(what, raw);
  const message = value.message;
  if (message !== undefined && message !== null && typeof message !== "string") fail(what, "'message' is not text");
  return {
    reference: string(what, value, "reference"),
    facts: factRows(what, value),
    value: valueSection(what, value.value),
    ...(typeof message === "string" && message ? { message } : {}),
  };
}

const NUMBER_OR_NULL = ["minimum", "maximum", "abs_max", "dtype_max", "fraction_of_max"] as const;

function parseNonFinite(raw: unknown): NonFiniteFacts {
  const what = "inspector reply's non-finite facts";
  const value = object(what, raw);
  const role = oneOf(what, value, "role", ["producer", "propagated"] as const);
  const inputs = array(what, value, "inputs").map((item) => {
    const row = object(what, item);
    for (const key of NUMBER_OR_NULL)
      if (row[key] !== null && typeof row[key] !== "number") fail(what, `'${key}' is neither a number nor null`);
    for (const key of ["nan_count", "inf_count"] as const) if (typeof row[key] !== "number") fail(what, `'${key}' is not a number`);
    string(what, row, "label");
    string(what, row, "dtype");
    string(what, row, "finding");
    return row as unknown as InputRangeRow;
  });
  return { role, source: string(what, value, "source"), inputs };
}

function memoryBytes(what: string, item: unknown): MemoryBytes {
  const row = object(what, item);
  if (typeof row.bytes !== "number" || !Number.isFinite(row.bytes)) fail(what, "'bytes' is not a number");
  return { name: string(what, row, "name"), bytes: row.bytes, text: string(what, row, "text") };
}

function parseMemory(raw: unknown): MemorySection {
  const what = "inspector reply's memory section";
  const value = object(what, raw);
  for (const key of ["live_bytes", "alive_count"] as const)
    if (typeof value[key] !== "number" || !Number.isFinite(value[key])) fail(what, `'${key}' is not a number`);
  const alive = array(what, value, "alive").map((item) => {
    const row = object(what, item);
    return { ...memoryBytes(what, row), label: string(what, row, "label"), node_id: string(what, row, "node_id") };
  });
  return {
    live_bytes: value.live_bytes as number,
    live_text: string(what, value, "live_text"),
    above_baseline_text: string(what, value, "above_baseline_text"),
    baseline_text: string(what, value, "baseline_text"),
    caption: string(what, value, "caption"),
    alive,
    alive_count: value.alive_count as number,
    module: string(what, value, "module"),
    module_rollup: array(what, value, "module_rollup").map((item) => memoryBytes(what, item)),
  };
}

function parseRuns(raw: unknown): RunsSection {
  const what = "inspector reply's runs section";
  const value = object(what, raw);
  const runs = array(what, value, "runs").map((item) => {
    const row = object(what, item);
    if (row.value !== null && (typeof row.value !== "number" || !Number.isFinite(row.value)))
      fail(what, "'value' is neither a finite number nor null");
    if (typeof row.lacks !== "boolean") fail(what, "'lacks' is not true or false");
    return { name: string(what, row, "name"), value: row.value as number | null, text: string(what, row, "text"), lacks: row.lacks };
  });
  return {
    overlay: string(what, value, "overlay"),
    shown: string(what, value, "shown"),
    reference: string(what, value, "reference"),
    runs,
  };
}
