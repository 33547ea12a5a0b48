// The `memory_timeline` request's reply (the memory strip under the graph, `w.timeline = "memory"`),
// part of the protocol written down in js/kernel/protocol.ts (which re-exports it); the kernel's side is
// MemoryTimelineResult in torchlens_widgets/_protocol.py.
import { array, fail, type Json, object, string } from "./json-checks";

/** What `w.timeline` may show (null hides the strip). */
export const TIMELINES = ["memory"] as const;
export type Timeline = (typeof TIMELINES)[number];

/** The `timeline` trait, checked: a strip this view draws, or null. */
export function parseTimeline(value: unknown): Timeline | null {
  return (TIMELINES as readonly unknown[]).includes(value) ? (value as Timeline) : null;
}

/**
 * torchlens' live bytes over execution order, one entry per point of its series in every list:
 * `live` is its series as is (the persistent baseline included), `bands[i]` the bytes of
 * `categories[i]` above the baseline at each point (they add up to `live` less the baseline).
 */
export interface MemoryTimelineReply {
  ordinals: number[];
  live: number[];
  categories: string[];
  bands: number[][];
  labels: string[];
  /** The op in the viewer on screen ("" where it draws none: a click there selects nothing). */
  node_ids: string[];
  baseline_bytes: number;
  baseline_text: string;
  peak_bytes: number;
  peak_text: string;
  peak_ordinal: number;
  caption: string;
}

/** A byte count or an ordinal: a finite number, never negative. */
function count(what: string, value: Json, key: string): number {
  const field = value[key];
  if (typeof field !== "number" || !Number.isFinite(field) || field < 0) fail(what, `'${key}' is not a count`);
  return field;
}

function numbers(what: string, value: unknown[], key: string, length: number): number[] {
  if (value.length !== length) fail(what, `'${key}' has ${value.length} points for ${length}`);
  for (const item of value) if (typeof item !== "number" || !Number.isFinite(item)) fail(what, `'${key}' holds a non-number`);
  return value as number[];
}

function texts(what: string, value: unknown[], key: string, length: number): string[] {
  if (value.length !== length) fail(what, `'${key}' has ${value.length} points for ${length}`);
  for (const item of value) if (typeof item !== "string") fail(what, `'${key}' holds something other than text`);
  return value as string[];
}

/** The reply, every list checked to be as long as the series and every number finite. */
export function parseMemoryTimelineReply(result: unknown): MemoryTimelineReply {
  const what = "memory timeline reply";
  const value = object(what, result);
  const ordinals = array(what, value, "ordinals");
  const n = ordinals.length;
  const named = array(what, value, "categories");
  const categories = texts(what, named, "categories", named.length);
  const bands = array(what, value, "bands");
  if (bands.length !== categories.length) fail(what, `${bands.length} bands for ${categories.length} categories`);
  return {
    ordinals: numbers(what, ordinals, "ordinals", n),
    live: numbers(what, array(what, value, "live"), "live", n),
    categories,
    bands: bands.map((band) => numbers(what, Array.isArray(band) ? band : fail(what, "a band is not a list"), "bands", n)),
    labels: texts(what, array(what, value, "labels"), "labels", n),
    node_ids: texts(what, array(what, value, "node_ids"), "node_ids", n),
    baseline_bytes: count(what, value, "baseline_bytes"),
    baseline_text: string(what, value, "baseline_text"),
    peak_bytes: count(what, value, "peak_bytes"),
    peak_text: string(what, value, "peak_text"),
    peak_ordinal: count(what, value, "peak_ordinal"),
    caption: string(what, value, "caption"),
  };
}
