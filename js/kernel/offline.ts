// The widget without a kernel: `w.save_html()` records what the kernel would answer (assets, the
// graph under every overlay, the inspector facts of every node, node id -> label) and this model
// replays it, so the same view code runs in a self-contained HTML file opened from disk.
// Format written by torchlens_widgets/_offline.py (tagged RECORDING_FORMAT, js/kernel/protocol.ts).
import type { AnyModel } from "@anywidget/types";
import { decodeBase64 } from "./bytes";
import { RECORDING_FORMAT, type RequestMethod } from "./protocol";
import type { WidgetTraits } from "../view/traits";

/** A kernel answer: a JSON header and indices into the recording's shared buffer pool. */
export interface RecordedReply {
  result: unknown;
  buffers: number[];
}

export interface Recording {
  format: string;
  state: Partial<WidgetTraits> & Record<string, unknown>;
  /** base64 of every binary part, shared by the replies (the graph is stored once for all overlays). */
  buffers: string[];
  assets: RecordedReply;
  /** overlay name ("" for none) -> the graph reply and the summary the toolbar shows. */
  graphs: Record<string, { reply: RecordedReply; summary: string }>;
  /** overlays the capture cannot show -> torchlens' reason (what the kernel would have said). */
  refused: Record<string, string>;
  labels: Record<string, string>;
  /** torchlens label -> inspector reply; absent when saved without inspector facts. */
  inspect: Record<string, RecordedReply>;
  /** The memory strip's series, when the widget showed it (`w.timeline = "memory"`). */
  timeline?: RecordedReply;
  /** A comparison (tlw.compare): run name -> that run's graphs and refusals, as `graphs` and `refused`
   * are for the run shown when saved; the run scrubber switches among them. */
  runs?: Record<string, RecordedGraphs>;
}

/** Overlay name -> graph reply and summary; overlay name -> why it is refused. */
export interface RecordedGraphs {
  graphs: Record<string, { reply: RecordedReply; summary: string }>;
  refused: Record<string, string>;
}

// biome-ignore lint/suspicious/noExplicitAny: the handlers of Backbone-style events
type Handler = (...args: any[]) => void;

/** The requests a recording answers; any other (a debug question: the kernel's) it refuses. */
const RECORDED: ReadonlySet<string> = new Set<RequestMethod>(["assets", "graph", "colours", "inspect", "memory_timeline"]);

/** Whether `model` plays a saved page's recording (no kernel behind it: it answers only what it recorded). */
export function isRecording(model: unknown): model is ReplayModel {
  return model instanceof ReplayModel;
}

/** Plays the kernel's part from a recording: state, the answers to requests, and the trait reactions. */
export class ReplayModel {
  private readonly state: Record<string, unknown>;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly pool: (DataView | undefined)[];
  private dirty = new Set<string>();
  private shownOverlay: string; // the overlay the recorded "kernel" last accepted
  readonly widget_manager = undefined as unknown as AnyModel["widget_manager"]; // no kernel to watch

  constructor(private readonly recording: Recording) {
    if (recording.format !== RECORDING_FORMAT) {
      throw new Error(`Unsupported recording ${JSON.stringify(recording.format)}; expected ${RECORDING_FORMAT}.`);
    }
    this.state = { ...recording.state };
    this.pool = new Array(recording.buffers.length);
    this.shownOverlay = String(this.state.overlay ?? "");
  }

  get(key: string): never {
    return this.state[key] as never;
  }

  set(key: string, value: unknown): void {
    if (this.state[key] === value) return;
    this.state[key] = value;
    this.dirty.add(key);
    this.emit(`change:${key}`);
  }

  /** What the kernel does with a change from the view: derive the label, switch overlays. */
  save_changes(): void {
    const changed = this.dirty;
    this.dirty = new Set();
    if (changed.has("selected_node")) {
      this.set("selected_label", this.recording.labels[String(this.state.selected_node)] ?? "");
    }
    if (changed.has("overlay")) this.applyOverlay(String(this.state.overlay ?? ""));
    else if (changed.has("run")) this.applyRun();
    this.dirty.clear();
  }

  /** Whether the recording answers `method` (the view offers no button whose question it cannot answer). */
  answers(method: RequestMethod): boolean {
    return RECORDED.has(method);
  }

  on(event: string, handler: Handler): void {
    if (!this.handlers.has(event)) this.handlers.set(event, new Set());
    this.handlers.get(event)!.add(handler);
  }

  off(event?: string | null, handler?: Handler | null): void {
    if (!event) this.handlers.clear();
    else if (!handler) this.handlers.delete(event);
    else this.handlers.get(event)?.delete(handler);
  }

  send(content: unknown): void {
    const request = content as { type?: string; channel?: string; id?: number; method?: string };
    if (request?.type !== "request") return;
    const answer = this.answer(String(request.method));
    // Asynchronous, as a kernel's answer is: the view has registered for it by then.
    setTimeout(() => {
      const envelope = { type: "response", channel: request.channel, id: request.id }; // as the kernel echoes it
      const response = answer.ok ? { ...envelope, ok: true, result: answer.reply.result } : { ...envelope, ok: false, error: answer.error };
      this.emit("msg:custom", response, answer.ok ? answer.reply.buffers.map((i) => this.buffer(i)) : []);
    }, 0);
  }

  private answer(method: string): { ok: true; reply: RecordedReply } | { ok: false; error: string } {
    if (method === "assets") return { ok: true, reply: this.recording.assets };
    if (method === "graph" || method === "colours") {
      const { graphs } = this.graphsNow();
      const { reply } = graphs[String(this.state.overlay ?? "")] ?? graphs[""] ?? this.recording.graphs[""];
      // The colours are this page's own recolour count; a colours reply is the graph reply's colours,
      // its buffers after the graph's (the node facts always sent: the view keeps no key of its own).
      const result = { ...(reply.result as Record<string, unknown>), colourRev: Number(this.state._colour_rev ?? 0) };
      if (method === "graph") return { ok: true, reply: { result, buffers: reply.buffers } };
      return { ok: true, reply: { result: { ...result, facts: "" }, buffers: reply.buffers.slice(1) } };
    }
    if (method === "inspect") {
      const label = String(this.state.selected_label ?? "");
      if (!label) return { ok: true, reply: { result: { kind: "none", label: "" }, buffers: [] } };
      const reply = this.recording.inspect[label];
      if (reply) return { ok: true, reply };
      return { ok: false, error: "this saved file has no inspector facts for it (saved with inspector=False)" };
    }
    if (method === "memory_timeline" && this.recording.timeline) return { ok: true, reply: this.recording.timeline };
    return { ok: false, error: `a saved file cannot answer '${method}': re-run the notebook for a live widget` };
  }

  /** The graphs of the run shown (a comparison's), else the recording's own. */
  private graphsNow(): RecordedGraphs {
    return this.recording.runs?.[String(this.state.run ?? "")] ?? this.recording;
  }

  /** A comparison's run switched (its scrubber): the overlay's graph of that run, drawn in place. An
   * overlay refused for that run draws none and says why, the overlay kept, as the kernel does. */
  private applyRun(): void {
    const overlay = String(this.state.overlay ?? "");
    const { graphs, refused } = this.graphsNow();
    const graph = graphs[overlay];
    this.set("notice", graph || !overlay ? "" : (refused[overlay] ?? `The overlay '${overlay}' was not saved for this run.`));
    this.set("overlay_summary", graph?.summary ?? "");
    this.set("_colour_rev", Number(this.state._colour_rev ?? 0) + 1);
  }

  private applyOverlay(overlay: string): void {
    const { graphs, refused } = this.graphsNow();
    const graph = graphs[overlay];
    if (graph) {
      this.shownOverlay = overlay;
      this.set("notice", "");
      this.set("overlay_summary", graph.summary);
      this.set("_colour_rev", Number(this.state._colour_rev ?? 0) + 1);
      return;
    }
    this.set("overlay", this.shownOverlay); // refused: the previous overlay stays, as in the kernel
    this.set("notice", refused[overlay] ?? `The overlay '${overlay}' was not saved in this file. Re-run the notebook to show it.`);
  }

  private buffer(index: number): DataView {
    this.pool[index] ??= decodeBase64(this.recording.buffers[index]);
    return this.pool[index]!;
  }

  private emit(event: string, ...args: unknown[]): void {
    for (const handler of [...(this.handlers.get(event) ?? [])]) handler(...args);
  }
}
